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
	// MaxIdempotencyKeyLength is the Idempotency-Key header's, as Stripe's.
	MaxIdempotencyKeyLength = 255
	// MaxGoalLength bounds a run's goal (api.CheckGoal).
	MaxGoalLength = api.MaxGoalBytes
	// MaxApprovers bounds a run's approvers.
	MaxApprovers = 20
	// DefaultPageSize is a listing's page when the caller names none.
	DefaultPageSize = 50
)

// Start is the body of POST /v1/runs. UserID is who the run acts for: the
// signed API authenticates a client holding the secret, not a person, so
// the client names its user, as a decision names its approver.
type Start struct {
	// Repo and PullNumber are a pull request target's shorthand; Target
	// names a target of any kind (api/target.go), never with them.
	Repo       string       `json:"repo,omitempty"`
	PullNumber int          `json:"pullNumber,omitempty"`
	Target     *StartTarget `json:"target,omitempty"`
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
}

// StartTarget is a start's target: a kind (default a pull request, whose
// fields are repo and pull) and its fields.
type StartTarget struct {
	Kind   string            `json:"kind,omitempty"`
	Fields map[string]string `json:"fields"`
}

// ParseStart parses and validates a start body. Every error it returns is
// a *Invalid.
func ParseStart(body []byte) (Start, error) { return parse[Start](body) }

// Validate checks a start.
func (req Start) Validate() error {
	if req.FollowUp != "" {
		return req.validateFollowUp()
	}
	if err := req.checkTarget(); err != nil {
		return err
	}
	if err := api.CheckGoal(req.Goal); err != nil {
		return Invalidf("%s", err)
	}
	switch {
	case req.Agent != "" && !api.ValidAgentName(req.Agent):
		return Invalidf("agent: %s", runclient.ErrBadAgent)
	case len(req.Approvers) > MaxApprovers:
		return Invalidf("approvers: at most %d", MaxApprovers)
	}
	for _, login := range req.Approvers {
		if !runclient.ValidLogin(login) {
			return Invalidf("approver %q is not a GitHub login", Clip(login, MaxEcho))
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
		return Invalidf("%s", err)
	}
	return nil
}

func (req Start) checkTarget() error {
	if req.Target != nil {
		if req.Repo != "" || req.PullNumber != 0 {
			return Invalidf("give target, or repo and pullNumber (a pull request's shorthand), not both")
		}
		t, err := api.NewTarget(req.Target.Kind, req.Target.Fields)
		if err != nil {
			return Invalidf("%s", Clip(err.Error(), 2*MaxEcho))
		}
		if t.IsPullRequest() && !runclient.ValidRepo(t.Owner+"/"+t.Repo) {
			return Invalidf("target repo: want OWNER/NAME as GitHub allows them, e.g. acme/widgets")
		}
		return nil
	}
	switch {
	case req.Repo == "":
		return Invalidf("missing field: repo (or target)")
	case !runclient.ValidRepo(req.Repo):
		return Invalidf("repo %q: want OWNER/NAME as GitHub allows them, e.g. acme/widgets", Clip(req.Repo, MaxEcho))
	case req.PullNumber <= 0:
		return Invalidf("pullNumber must be a number above 0")
	}
	return nil
}

// target is the start's target; Validate has checked it.
func (req Start) target() api.Target {
	if req.Target == nil {
		t, _ := api.ParseTarget(req.Repo, req.PullNumber)
		return t
	}
	t, _ := api.NewTarget(req.Target.Kind, req.Target.Fields)
	return t
}

// Input is the run the request asks for.
func (req Start) Input() api.RunInput {
	in := api.RunInput{
		Goal: req.Goal, Agent: req.Agent, Approvers: req.Approvers, UserID: req.UserID,
	}.WithTarget(req.target())
	if req.CallbackURL != "" {
		deadline, _ := req.callbackDeadline()
		in.Callback = &api.Callback{URL: req.CallbackURL, Deadline: deadline}
	}
	return in
}

// MaxCallbackDeadline bounds how long a run may keep delivering its result.
const MaxCallbackDeadline = 7 * 24 * time.Hour

func (req Start) callbackDeadline() (time.Duration, error) {
	if req.CallbackDeadline == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(req.CallbackDeadline)
	switch {
	case req.CallbackURL == "":
		return 0, Invalidf("callbackDeadline needs a callbackUrl")
	case err != nil || d <= 0 || d > MaxCallbackDeadline:
		return 0, Invalidf("callbackDeadline must be a duration such as \"24h\", above 0 and at most %s", MaxCallbackDeadline)
	}
	return d, nil
}

// CheckCallback refuses a start whose callback URL the server's
// AGENTRUN_CALLBACK_ALLOWED does not allow, saying why.
func CheckCallback(allowed api.CallbackAllowList, req Start) error {
	if req.CallbackURL == "" {
		return nil
	}
	if err := allowed.Check(req.CallbackURL); err != nil {
		return Invalidf("callbackUrl: %s", err)
	}
	return nil
}

// CheckIdempotencyKey checks the Idempotency-Key header's values: exactly
// one, of 1 to MaxIdempotencyKeyLength printable ASCII characters (HTTP
// drops a value's surrounding spaces, so a client cannot send them).
func CheckIdempotencyKey(values []string) (string, error) {
	if len(values) != 1 || values[0] == "" {
		return "", Invalidf("send one Idempotency-Key header: 1 to %d printable ASCII characters", MaxIdempotencyKeyLength)
	}
	key := values[0]
	if len(key) > MaxIdempotencyKeyLength {
		return "", Invalidf("Idempotency-Key is over %d characters", MaxIdempotencyKeyLength)
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x20 || key[i] > 0x7e {
			return "", Invalidf("Idempotency-Key must be printable ASCII")
		}
	}
	return key, nil
}

// List is the query of GET /v1/runs.
type List struct {
	Filter    runclient.ListFilter
	PageSize  int
	PageToken string
}

// ParseList reads GET /v1/runs?status=&agent=&pageSize=&pageToken=. It
// refuses any other parameter, and any given twice, so that a typo is not a
// silently wider listing.
func ParseList(query url.Values) (List, error) {
	list := List{PageSize: DefaultPageSize}
	// In order, so that a query with two faults is always told the same one.
	for _, name := range slices.Sorted(maps.Keys(query)) {
		values := query[name]
		if len(values) != 1 {
			return List{}, Invalidf("query parameter %q is given %d times", Clip(name, MaxEcho), len(values))
		}
		value := values[0]
		switch name {
		case "status":
			if list.Filter.Status = api.RunStatus(value); value != "" && !list.Filter.Status.Known() {
				return List{}, Invalidf("unknown status %q", Clip(value, MaxEcho))
			}
		case "agent":
			if list.Filter.Agent = value; value != "" && !api.ValidAgentName(value) {
				return List{}, Invalidf("agent: %s", runclient.ErrBadAgent)
			}
		case "pageSize":
			size, err := strconv.Atoi(value)
			if err != nil || size < 1 || size > runclient.MaxPageSize {
				return List{}, Invalidf("pageSize must be a number from 1 to %d", runclient.MaxPageSize)
			}
			list.PageSize = size
		case "pageToken":
			list.PageToken = value
		default:
			return List{}, Invalidf("unknown query parameter %q: want status, agent, pageSize or pageToken", Clip(name, MaxEcho))
		}
	}
	return list, nil
}

// handleStartRun serves POST /v1/runs: one run per user and Idempotency-Key,
// 202 with its ID and snapshot URL to every repeat, 422 to another request.
func (s *Server) handleStartRun(w http.ResponseWriter, r *http.Request) {
	key, err := CheckIdempotencyKey(r.Header.Values(api.HeaderIdempotencyKey))
	if err != nil {
		s.writeBadRequest(w, err)
		return
	}
	req, ok := parseSigned(s, w, r, ParseStart)
	if !ok {
		return
	}
	if err := CheckCallback(s.cfg.CallbackAllowed, req); err != nil {
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
		writeOutcome(w, TemporalFailure(logger, err, "start run"))
		return
	}
	logger.Info("run started or found", "closedStatus", started.ClosedStatus)
	w.Header().Set("Location", "/v1/runs/"+url.PathEscape(started.RunID))
	writeJSON(w, http.StatusAccepted, started)
}

// handleListRuns serves GET /v1/runs?status=&agent=&pageSize=&pageToken=.
func (s *Server) handleListRuns(w http.ResponseWriter, r *http.Request) {
	list, err := ParseList(r.URL.Query())
	if err != nil {
		s.writeBadRequest(w, err)
		return
	}
	page, err := s.runs.ListPage(r.Context(), list.Filter, list.PageSize, list.PageToken)
	if err != nil {
		writeOutcome(w, TemporalFailure(s.logger, err, "list runs"))
		return
	}
	writeJSON(w, http.StatusOK, page)
}
