// Package activities is the worker's Temporal activities, thin adapters
// over what does the work: ModelNext over a model.Model (the conversation
// resolved inline, from the in-process handoff or through the run's
// conversation query and its cache), ExecuteTool and ReconcileTool over the
// tools.Registry the workflow checks calls against (bounding what any tool
// returns), CheckRepoPermission over a github.Access, LoadFollowUp over the
// run client, and DeliverResult, signed by the signer the worker assembly
// supplies. The activities choose none of these: registration and
// internal/agentworker assemble them.
package activities
