// Package depcheck holds the test that keeps the arrows one way: the
// starter and the approval server speak to runs through api and runclient;
// the workflow links neither the activities, the agents, an integration,
// go-github nor a model client; the activities link neither the built-in
// agents nor the approval server; the model interface links no provider.
package depcheck
