// Package api is the contract between agentrun's processes: every name one
// process uses to reach a run (task queue, workflow, signals, queries, search
// attributes, activities, tools) and every type those messages carry, down
// to the activity inputs and outputs recorded in a run's history.
//
// It imports nothing of agentrun's own, so that the starter, the approval
// server and a user's own tooling can speak to runs without linking the
// workflow, the activities or the model clients behind them.
//
// Every JSON name here is on the wire: in workflow histories (which replay
// for as long as a run is open), in continue-as-new checkpoints and in query
// answers. Renaming one breaks open runs; workflows/testdata/replay holds
// the recorded histories that catch a change that did.
package api
