package ghsandbox

// servedOps are the operations a fault can name: every endpoint of the API.
var servedOps = []string{
	OpGetPullRequest, OpListFiles, OpListComments, OpCreateComment, OpGetPermission, OpGetUser,
	OpCreateReview, OpListReviews, OpAddLabels, OpListLabels, OpListRepoLabels, OpCreateIssue, OpListIssues,
	OpCreateCheckRun, OpUpdateCheckRun, OpListCheckRuns, OpGetComment, OpEditComment,
}

// AddFault queues a fault behind those already queued.
func (s *Server) AddFault(f Fault) error { return s.faults.Add([]Fault{f}) }

// Faults returns the queued faults with the counts that remain.
func (s *Server) Faults() []Fault { return s.faults.List() }

// ClearFaults drops every queued fault.
func (s *Server) ClearFaults() { s.faults.Clear() }
