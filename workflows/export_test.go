package workflows

// CheckpointWaitingForApproval is checkpointWaitingForApproval for the dev
// server's tests (package workflows_test), which cannot import this package's
// internals.
var (
	CheckpointWaitingForApproval = checkpointWaitingForApproval
	ApproveInCheckpoint          = approveInCheckpoint
)
