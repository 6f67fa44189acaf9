package workflows

import "go.temporal.io/sdk/workflow"

// securityChangeID gates the security batch of December 2026: action IDs
// unique per execution chain, the action-ID search attribute, refusing a
// checkpoint on a fresh start, rejects that need a reason, ASCII-only login
// matching and refusing comment bodies that carry an operation marker. Each
// changes the commands a run makes, so a history recorded before the batch
// replays on the old path; a run that starts (or continues as new) on the
// batch records the marker once, at the top of setup. The next batch of
// command-altering changes takes a new change ID.
const securityChangeID = "security-2026-12"

// securityVersion is the version of securityChangeID that has the batch.
const securityVersion workflow.Version = 1

// securityBatch reports whether this run takes the security batch. It must be
// called once, before the run makes any other command.
func securityBatch(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, securityChangeID, workflow.DefaultVersion, securityVersion) >= securityVersion
}

// policyChangeID gates the approval-policy and outcome batch of December
// 2026: a run without approvers checks each decider's GitHub write
// permission in a CheckRepoPermission activity (a permission_check step)
// before applying the decision, and a run that cannot read its pull request
// ends failed instead of completed. Both change the commands a run makes, so
// histories recorded before the batch (testdata/*.json, testdata/v2) replay on
// the old path. Like securityChangeID it is asked once, at the top of setup.
const policyChangeID = "policy-outcome-2026-12"

// policyVersion is the version of policyChangeID that has the batch.
const policyVersion workflow.Version = 1

// policyBatch reports whether this run takes the policy and outcome batch.
func policyBatch(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, policyChangeID, workflow.DefaultVersion, policyVersion) >= policyVersion
}

// localCheckChangeID gates the performance batch of December 2026 (issue
// 12): the decider's permission check runs as a local activity, inside the
// workflow task that received the decision, instead of an activity the
// server schedules. The check only reads GitHub, so running it in the
// worker changes no guarantee; it saves a task round trip between the
// approval and the post (and the events of an activity). Histories recorded
// before it (testdata/v3 and older) replay on the scheduled path.
const localCheckChangeID = "local-permission-check-2026-12"

// localCheckVersion is the version of localCheckChangeID that has the batch.
const localCheckVersion workflow.Version = 1

// localCheckBatch reports whether this run checks permissions locally.
func localCheckBatch(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, localCheckChangeID, workflow.DefaultVersion, localCheckVersion) >= localCheckVersion
}
