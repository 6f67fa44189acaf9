// Package workflows is the AgentRun workflow, the whole of a run's lifecycle:
// the model→tools loop, the approval gate and its rules (decide.go, policy.go),
// reconciliation of unknown outcomes (reconcile.go, failure.go), the
// checkpoint a continue-as-new carries (checkpoint.go, compact.go), and what a
// run shows through its queries (view.go, outcome.go, inbox.go).
package workflows
