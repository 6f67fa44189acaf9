package approvalsrv

import (
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/runclient"
)

// Limits of a start request.
const (
	// maxIdempotencyKeyLength is the Idempotency-Key header's, as Stripe's.
	maxIdempotencyKeyLength = 255
	// maxGoalLength bounds a run's goal (api.CheckGoal).
	maxGoalLength = api.MaxGoalBytes
	// maxApprovers bounds a run's approvers.
	maxApprovers = 20
	// defaultPageSize is a listing's page when the caller names none.
	defaultPageSize = 50
)

// startRequest is the body of POST /v1/runs. UserID is who the run acts for: the
// signed API authenticates a client holding the secret, not a person, so
// the client names its user, as a decision names its approver.
type startRequest struct {
	// Repo and PullNumber are a pull request target's shorthand; Target
	// names a target of any kind (api/target.go), never with them.
	Repo       string       `json:"repo,omitempty"`
	PullNumber int          `json:"pullNumber,omitempty"`
	Target     *startTarget `json:"target,omitempty"`
	Goal       string       `json:"goal,omitempty"`
	Agent      string       `json:"agent,omitempty"`
	Approvers  []string     `json:"approvers,omitempty"`
	UserID     string       `json:"userId"`
	// CallbackURL is where the run delivers its result when it ends; it
	// must be under AGENTRUN_CALLBACK_ALLOWED (handleStartRun checks).
	// CallbackDeadline ("24h") bounds the delivery's retries.
	CallbackURL      string `json:"callbackUrl,omitempty"`
	CallbackDeadline string `json:"callbackDeadline,omitempty"`
	// FollowUp names a finished run whose conversation the new run
	// continues, with Goal as the new message; the target, agent and
	// approvers are that run's, so the body names none (followup.go).
	FollowUp string `json:"followUp,omitempty"`
	// CheckRun makes a pull request run show itself as a check run on its
	// head (api.CheckRunInput): {} for the head when the run starts, or
	// {"headSha": "..."} for that commit.
	CheckRun *api.CheckRunInput `json:"checkRun,omitempty"`
}

// startTarget is a start's target: a kind (default a pull request, whose
// fields are repo and pull) and its fields.
type startTarget struct {
	Kind   string            `json:"kind,omitempty"`
	Fields map[string]string `json:"fields"`
}

// parseStart parses and validates a start body. Every error it returns is
// a *invalidRequest.
func parseStart(body []byte) (startRequest, error) { return parse[startRequest](body) }

// Validate checks a start.
func (req startRequest) Validate() error {
	if req.FollowUp != "" {
		return req.validateFollowUp()
	}
	if err := req.checkTarget(); err != nil {
		return err
	}
	if err := api.CheckGoal(req.Goal); err != nil {
		return invalidf("%s", err)
	}
	switch {
	case req.Agent != "" && !api.ValidAgentName(req.Agent):
		return invalidf("agent: %s", runclient.ErrBadAgent)
	case len(req.Approvers) > maxApprovers:
		return invalidf("approvers: at most %d", maxApprovers)
	}
	for _, login := range req.Approvers {
		if !runclient.ValidLogin(login) {
			return invalidf("approver %q is not a GitHub login", clip(login, maxEcho))
		}
	}
	if err := checkName("userId", req.UserID); err != nil {
		return err
	}
	if _, err := req.callbackDeadline(); err != nil {
		return err
	}
	// The run would refuse these at once; the caller hears it now, in the
	// same words.
	if err := runclient.CheckStart(req.Input()); err != nil {
		return invalidf("%s", err)
	}
	return nil
}

func (req startRequest) checkTarget() error {
	if req.Target != nil {
		if req.Repo != "" || req.PullNumber != 0 {
			return invalidf("give target, or repo and pullNumber (a pull request's shorthand), not both")
		}
		t, err := api.NewTarget(req.Target.Kind, req.Target.Fields)
		if err != nil {
			return invalidf("%s", clip(err.Error(), 2*maxEcho))
		}
		if t.IsPullRequest() && !runclient.ValidRepo(t.Owner+"/"+t.Repo) {
			return invalidf("target repo: want OWNER/NAME as GitHub allows them, e.g. acme/widgets")
		}
		return nil
	}
	switch {
	case req.Repo == "":
		return invalidf("missing field: repo (or target)")
	case !runclient.ValidRepo(req.Repo):
		return invalidf("repo %q: want OWNER/NAME as GitHub allows them, e.g. acme/widgets", clip(req.Repo, maxEcho))
	case req.PullNumber <= 0:
		return invalidf("pullNumber must be a number above 0")
	}
	return nil
}

// target is the start's target; Validate has checked it.
func (req startRequest) target() api.Target {
	if req.Target == nil {
		t, _ := api.ParseTarget(req.Repo, req.PullNumber)
		return t
	}
	t, _ := api.NewTarget(req.Target.Kind, req.Target.Fields)
	return t
}

// Input is the run the request asks for.
func (req startRequest) Input() api.RunInput {
	in := api.RunInput{
		Goal: req.Goal, Agent: req.Agent, Approvers: req.Approvers, UserID: req.UserID,
	}.WithTarget(req.target())
	in.CheckRun = req.CheckRun
	if req.CallbackURL != "" {
		deadline, _ := req.callbackDeadline()
		in.Callback = &api.Callback{URL: req.CallbackURL, Deadline: deadline}
	}
	return in
}

// maxCallbackDeadline bounds how long a run may keep delivering its result.
const maxCallbackDeadline = 7 * 24 * time.Hour

func (req startRequest) callbackDeadline() (time.Duration, error) {
	if req.CallbackDeadline == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(req.CallbackDeadline)
	switch {
	case req.CallbackURL == "":
		return 0, invalidf("callbackDeadline needs a callbackUrl")
	case err != nil || d <= 0 || d > maxCallbackDeadline:
		return 0, invalidf("callbackDeadline must be a duration such as \"24h\", above 0 and at most %s", maxCallbackDeadline)
	}
	return d, nil
}

// checkCallback refuses a start whose callback URL the server's
// AGENTRUN_CALLBACK_ALLOWED does not allow, saying why.
func checkCallback(allowed api.CallbackAllowList, req startRequest) error {
	if req.CallbackURL == "" {
		return nil
	}
	if err := allowed.Check(req.CallbackURL); err != nil {
		return invalidf("callbackUrl: %s", err)
	}
	return nil
}

// checkIdempotencyKey checks the Idempotency-Key header's values: exactly
// one, of 1 to maxIdempotencyKeyLength printable ASCII characters (HTTP
// drops a value's surrounding spaces, so a client cannot send them).
func checkIdempotencyKey(values []string) (string, error) {
	if len(values) != 1 || values[0] == "" {
		return "", invalidf("send one Idempotency-Key header: 1 to %d printable ASCII characters", maxIdempotencyKeyLength)
	}
	key := values[0]
	if len(key) > maxIdempotencyKeyLength {
		return "", invalidf("Idempotency-Key is over %d characters", maxIdempotencyKeyLength)
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x20 || key[i] > 0x7e {
			return "", invalidf("Idempotency-Key must be printable ASCII")
		}
	}
	return key, nil
}

// listRequest is the query of GET /v1/runs.
type listRequest struct {
	Filter    runclient.ListFilter
	PageSize  int
	PageToken string
}

// parseList reads GET /v1/runs?status=&agent=&pageSize=&pageToken=. It
// refuses any other parameter, and any given twice, so that a typo is not a
// silently wider listing.
func parseList(query url.Values) (listRequest, error) {
	list := listRequest{PageSize: defaultPageSize}
	// In order, so that a query with two faults is always told the same one.
	for _, name := range slices.Sorted(maps.Keys(query)) {
		values := query[name]
		if len(values) != 1 {
			return listRequest{}, invalidf("query parameter %q is given %d times", clip(name, maxEcho), len(values))
		}
		value := values[0]
		switch name {
		case "status":
			if list.Filter.Status = api.RunStatus(value); value != "" && !list.Filter.Status.Known() {
				return listRequest{}, invalidf("unknown status %q", clip(value, maxEcho))
			}
		case "agent":
			if list.Filter.Agent = value; value != "" && !api.ValidAgentName(value) {
				return listRequest{}, invalidf("agent: %s", runclient.ErrBadAgent)
			}
		case "pageSize":
			size, err := strconv.Atoi(value)
			if err != nil || size < 1 || size > runclient.MaxPageSize {
				return listRequest{}, invalidf("pageSize must be a number from 1 to %d", runclient.MaxPageSize)
			}
			list.PageSize = size
		case "pageToken":
			list.PageToken = value
		default:
			return listRequest{}, invalidf("unknown query parameter %q: want status, agent, pageSize or pageToken", clip(name, maxEcho))
		}
	}
	return list, nil
}

// handleStartRun serves POST /v1/runs: one run per user and Idempotency-Key,
// 202 with its ID and snapshot URL to every repeat, 422 to another request.
func (s *Server) handleStartRun(w http.ResponseWriter, r *http.Request) {
	key, err := checkIdempotencyKey(r.Header.Values(api.HeaderIdempotencyKey))
	if err != nil {
		s.writeBadRequest(w, err)
		return
	}
	req, ok := parseSigned(s, w, r, parseStart)
	if !ok {
		return
	}
	if err := checkCallback(s.cfg.CallbackAllowed, req); err != nil {
		s.writeBadRequest(w, err)
		return
	}
	if req.FollowUp != "" {
		s.startFollowUp(w, r, req, key)
		return
	}
	in := req.Input()
	runID := runclient.KeyedRunID(in.UserID, key)
	in.ConversationID = runID
	logger := s.logger.With("run", runID, "user", in.UserID, "target", req.target().Ref(), "agent", in.Agent)
	started, err := s.runs.Start(r.Context(), runclient.StartRequest{
		RunID: runID, TaskQueue: s.cfg.TaskQueue, Input: in, RequestHash: runclient.RequestHash(in),
	})
	if err != nil {
		writeOutcome(w, temporalFailure(logger, err, "start run"))
		return
	}
	logger.Info("run started or found", "closedStatus", started.ClosedStatus)
	w.Header().Set("Location", "/v1/runs/"+url.PathEscape(started.RunID))
	writeJSON(w, http.StatusAccepted, started)
}

// handleListRuns serves GET /v1/runs?status=&agent=&pageSize=&pageToken=.
func (s *Server) handleListRuns(w http.ResponseWriter, r *http.Request) {
	list, err := parseList(r.URL.Query())
	if err != nil {
		s.writeBadRequest(w, err)
		return
	}
	page, err := s.runs.ListPage(r.Context(), list.Filter, list.PageSize, list.PageToken)
	if err != nil {
		writeOutcome(w, temporalFailure(s.logger, err, "list runs"))
		return
	}
	writeJSON(w, http.StatusOK, page)
}
