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

// StepsPage answers QuerySteps from the state: out-of-range pages are empty.
func (cp *Checkpoint) StepsPage(p StepPage) StepsPage {
	limit := p.Limit
	if limit <= 0 || limit > SnapshotSteps {
		limit = SnapshotSteps
	}
	from := min(max(p.From, 0), len(cp.Steps))
	to := min(from+limit, len(cp.Steps))
	page := StepsPage{Steps: make([]AgentStep, 0, to-from), From: from, StepCount: len(cp.Steps)}
	for _, st := range cp.Steps[from:to] {
		page.Steps = append(page.Steps, *st)
	}
	return page
}
