// Command worker runs agent runs: it polls AGENT_TASK_QUEUE for the AgentRun
// workflow and its activities until SIGINT or SIGTERM, then lets the
// activities in flight finish for up to AGENT_STOP_TIMEOUT (30s) before
// cancelling them, so that a deploy does not leave a comment half posted
// for the run to reconcile. With AGENT_VERSIONING=pinned it polls as one
// version of its Worker Deployment (AGENT_DEPLOYMENT_NAME, AGENT_BUILD_ID),
// so each run stays on the build that started it. Configuration comes
// from the environment, read once through its table (`worker --help` lists
// it); a bad value stops it at start-up with exit code 2. `worker
// replay-check` replays a sample of the open runs on this build's code
// instead, before it takes them over.
//
// It is the public agentworker package with the built-in agents alone: a
// worker with tools of its own is the same call with them (docs/tools.md).
package main

import "github.com/agentrun/agentrun/agentworker"

func main() { agentworker.Main(agentworker.Options{}) }
