package api

// SnapshotSteps is how many of its newest steps a RunSnapshot carries. A
// default run (DefaultMaxSteps model calls and their tool calls) fits in it
// whole; a long run's older steps page through QuerySteps.
const SnapshotSteps = 100

// StepPage asks QuerySteps for the steps From, From+1, ... (indexes among all
// the run's steps, oldest first), at most Limit of them; Limit 0 or past
// SnapshotSteps means SnapshotSteps.
type StepPage struct {
	From  int `json:"from"`
	Limit int `json:"limit,omitempty"`
}

// StepsPage answers QuerySteps.
type StepsPage struct {
	Steps     []AgentStep `json:"steps"`
	From      int         `json:"from"`
	StepCount int         `json:"stepCount"`
}
