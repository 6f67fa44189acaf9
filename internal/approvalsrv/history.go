package approvalsrv

import (
	"cmp"
	"context"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/runclient"
)

// historyLimit bounds the history page: listing every run ever started
// would grow without end, and each row costs a run query for its outcome.
const historyLimit = 50

// historyQueries bounds the run queries one history page sends at once, as
// the inbox listing does.
const historyQueries = 8

// historyFilters are the statuses the history page filters by, in the order
// it offers them; "" is every run.
var historyFilters = []api.RunStatus{
	"", api.RunWaitingForUser, api.RunRunning, api.RunReconciling,
	api.RunCompleted, api.RunFailed, api.RunCancelled,
}

type historyRow struct {
	RunID      string
	Agent      string
	Requester  string
	Status     string
	StatusText string
	// StatusDetail says why (api.Standing.Detail).
	StatusDetail string
	StartedAt    time.Time
	// EndedAt is when the run ended; zero while it is open.
	EndedAt time.Time
	Target  string
	// Summary is the run's outcome in one line; empty when the run could
	// not be asked (its row still shows, unless only readable runs show).
	Summary string
	// readable: the row may show to the page's person.
	readable bool
}

type historyFilter struct {
	Status  string
	Text    string
	Current bool
}

// serveHistory serves GET /runs?status=S: the latest runs, newest
// first, with their outcome.
func (s *pages) serveHistory(w http.ResponseWriter, r *http.Request) {
	status, ok := historyStatus(r.URL.Query().Get("status"))
	if !ok {
		// The filter is not echoed: the page never repeats caller text.
		s.pageError(w, refused(http.StatusBadRequest, "Unknown status filter: use one of the links on the run history page."))
		return
	}
	agent := strings.TrimSpace(r.URL.Query().Get("agent"))
	if agent != "" && !api.ValidAgentName(agent) {
		s.pageError(w, refused(http.StatusBadRequest, "Unknown agent filter: an agent's name is letters, digits, - and _."))
		return
	}
	listed, err := s.runs.List(r.Context(), runclient.ListFilter{Status: status, Agent: agent})
	if err != nil {
		s.pageError(w, temporalFailure(s.logger, err, "history page"))
		return
	}
	more := len(listed) > historyLimit
	if more {
		listed = listed[:historyLimit]
	}
	rows := make([]historyRow, len(listed))
	for i, l := range listed {
		rows[i] = historyRow{RunID: l.RunID, Agent: l.Agent, Status: l.Status, StatusText: statusText(api.RunStatus(l.Status)), StartedAt: l.StartedAt}
	}
	s.addOutcomes(r.Context(), rows)
	rows = slices.DeleteFunc(rows, func(row historyRow) bool { return !row.readable })
	filters := make([]historyFilter, len(historyFilters))
	for i, f := range historyFilters {
		text := "All"
		if f != "" {
			text = statusText(f)
		}
		filters[i] = historyFilter{Status: string(f), Text: text, Current: f == status}
	}
	var agents []string
	for _, row := range rows {
		if row.Agent != "" && !slices.Contains(agents, row.Agent) {
			agents = append(agents, row.Agent)
		}
	}
	sort.Strings(agents)
	data := map[string]any{"Title": "Run history", "Rows": rows, "Filters": filters, "More": more, "Limit": historyLimit,
		"Agent": agent, "Agents": agents, "Status": status}
	s.render(w, http.StatusOK, "history.html", data)
}

func historyStatus(v string) (api.RunStatus, bool) {
	for _, f := range historyFilters {
		if string(f) == v {
			return f, true
		}
	}
	return "", false
}

// addOutcomes asks each run for its target and outcome, a few at a time,
// and marks the rows the page's person may read. A run that does not answer
// keeps its row without them in dev mode (one stuck run must not hide the
// others) and loses it otherwise (nobody can tell who may read it).
func (s *pages) addOutcomes(ctx context.Context, rows []historyRow) {
	slots := make(chan struct{}, historyQueries)
	var wg sync.WaitGroup
	for i := range rows {
		// Without the run's snapshot nobody can tell who may read it.
		rows[i].readable = s.cfg.InsecureDev
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			snap, err := s.runs.Snapshot(ctx, rows[i].RunID)
			if err != nil {
				s.logger.Info("history row without its outcome", "run", rows[i].RunID, "err", err)
				return
			}
			if !s.cfg.InsecureDev && !s.readableSnapshot(ctx, snap) {
				return
			}
			rows[i].readable = true
			rows[i].Target = snap.Run.TargetName()
			rows[i].Agent = cmp.Or(snap.Run.Agent, rows[i].Agent)
			rows[i].Requester = snap.Run.UserID
			if snap.Run.Status.IsTerminal() {
				rows[i].EndedAt = snap.Run.UpdatedAt
			}
			standing := api.StandingOfRun(snap)
			rows[i].Status, rows[i].StatusText, rows[i].StatusDetail = standing.Key, standing.Words, standing.Detail
			rows[i].Summary = snap.Outcome.Summary
			if rows[i].Summary == "" {
				rows[i].Summary = snap.Label
			}
		}()
	}
	wg.Wait()
}
