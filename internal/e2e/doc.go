// Package e2e runs agentrun the way it is deployed: the real mains (worker,
// starter, GitHub sandbox, approval server) as subprocesses against a real
// Temporal dev server. The harness here starts, watches and SIGKILLs those
// processes; the end-to-end test and the fault-injection suite (TestFault*)
// live in this package's _test files.
//
// Tests assert only from what a user could check: the sandbox's comments and
// the runs' queries. Process logs are captured to files and printed when a
// test fails, never asserted on.
package e2e
