package workflows

import "go.temporal.io/sdk/workflow"

// Each change ID below gates one batch of changes to the commands a run
// makes, at the top of setup: a history recorded before a batch replays on
// the old path. A run on the newest batch records only its marker (and the
// SDK's one TemporalChangeVersion upsert, a visibility write), as it implies
// the older ones. Version 1 of each ID is its batch; the next takes a new ID.
const (
	// securityChangeID, December 2026: action IDs unique per execution
	// chain, the action-ID search attribute, refusing a checkpoint on a fresh
	// start, rejects that need a reason, ASCII-only login matching and
	// refusing comment bodies that carry an operation marker.
	securityChangeID = "security-2026-12"
	// policyChangeID, December 2026: a run without approvers checks each
	// decider's GitHub write permission (a permission_check step) before
	// applying the decision, and a run that cannot read its pull request ends
	// failed instead of completed (testdata/*.json and testdata/v2 predate it).
	policyChangeID = "policy-outcome-2026-12"
	// localCheckChangeID, December 2026 (issue 12): the decider's permission
	// check runs as a local activity, inside the workflow task that received
	// the decision, instead of an activity the server schedules. It only reads
	// GitHub, so no guarantee changes; it saves a task round trip between the
	// approval and the post (testdata/v3 and older predate it).
	localCheckChangeID = "local-permission-check-2026-12"
	// registryChangeID, December 2026 (issue 13): every tool runs through
	// the registry's ExecuteTool and ReconcileTool activities, a run names its
	// agent, a turn's reads run concurrently, and an action binds its
	// approval with ToolArgsHash (testdata/v4 and older predate it).
	registryChangeID = "tool-registry-2026-12"
	// perfChangeID, December 2026 (issue 12): a waiting run keeps its waiting
	// actions in its memo (view.PublishInbox), and an action's input names its
	// approved preview by digest, not by a second copy of its text.
	perfChangeID = "perf-2026-12c"
)

// batchVersion is the version of every change ID that has its batch.
const batchVersion workflow.Version = 1

// takesBatch reports whether this run takes the batch of changeID.
func takesBatch(ctx workflow.Context, changeID string) bool {
	return workflow.GetVersion(ctx, changeID, workflow.DefaultVersion, batchVersion) >= batchVersion
}
