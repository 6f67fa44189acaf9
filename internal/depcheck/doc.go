// Package depcheck holds a test that keeps each binary linking only what it
// uses: the starter and the approval server speak to runs through package
// api and runclient, so they must not link the workflow, the activities or
// a model client.
package depcheck
