package api

// SnapshotSteps is how many of its newest steps a RunSnapshot carries. A
// review (some 7 steps) fits in it whole; a longer run's older steps page
// through QuerySteps. The run query's time follows its size: at 100 steps
// (72 KB) its p50 was 7.6 ms on the bench, at 20 (15 KB) 3.3 ms.
const SnapshotSteps = 25

// MaxStepsPage bounds one page of QuerySteps.
const MaxStepsPage = 100

// StepPage asks QuerySteps for the steps From, From+1, ... (indexes among all
// the run's steps, oldest first), at most Limit of them; Limit 0 or past
// MaxStepsPage means MaxStepsPage.
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
