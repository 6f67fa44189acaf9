package ghsandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// ControlCheckActionsPath is where POST presses a check run's button as a
// person would on GitHub (PressAs): the sandbox sends the signed check_run
// requested_action delivery GitHub would send, with that person as its
// sender. The pull request's page posts its buttons' forms here too.
const ControlCheckActionsPath = "/_sandbox/check-runs/{owner}/{repo}/{id}/requested-action"

// PressAs is the body of POST ControlCheckActionsPath.
type PressAs struct {
	// Identifier is the button's identifier, as the check run shows it.
	Identifier string `json:"identifier"`
	// Sender is who pressed it: any login, a collaborator or not, as on
	// GitHub, where anyone who sees the page can press (the receiver
	// decides what the press may do).
	Sender string `json:"sender"`
}

// PressAnswer is what the sandbox answers: the delivery it sent and what
// its receiver answered, as GitHub's delivery log shows them.
type PressAnswer struct {
	DeliveryID string `json:"deliveryId,omitempty"`
	// Delivered is the receiver's status; 0 when nothing was sent.
	Delivered     int    `json:"delivered"`
	Response      string `json:"response,omitempty"`
	DeliveryError string `json:"deliveryError,omitempty"`
}

// PressCheckAction presses the button identified by p.Identifier on the
// check run id of owner/repo as p.Sender, and sends the check_run
// requested_action delivery for it to the webhook; b makes its URLs.
func (s *Server) PressCheckAction(ctx context.Context, b Bases, owner, repo string, id int64, p PressAs) (PressAnswer, error) {
	if !validLogin(p.Sender) {
		return PressAnswer{}, fmt.Errorf("sender %q is not a GitHub login", p.Sender)
	}
	payload, hook, err := s.checkActionPayload(b, owner, repo, id, p)
	if err != nil {
		return PressAnswer{}, err
	}
	if hook.URL == "" {
		return PressAnswer{DeliveryError: "no webhook: set SANDBOX_WEBHOOK_URL"}, nil
	}
	answer := PressAnswer{DeliveryID: newDeliveryID()}
	answer.Delivered, answer.Response, err = deliver(ctx, hook, "check_run", answer.DeliveryID, payload)
	if err != nil {
		answer.DeliveryError = err.Error()
	}
	return answer, nil
}

func (s *Server) checkActionPayload(b Bases, owner, repo string, id int64, p PressAs) ([]byte, Webhook, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs, ok := s.repos[repoID(owner, repo)]
	if !ok {
		return nil, Webhook{}, fmt.Errorf("no repository %s/%s in the sandbox", owner, repo)
	}
	i := slices.IndexFunc(rs.checkRuns, func(c CheckRun) bool { return c.ID == id })
	if i < 0 {
		return nil, Webhook{}, fmt.Errorf("no check run %d on %s/%s", id, owner, repo)
	}
	c := rs.checkRuns[i]
	// GitHub shows a check run's buttons only while it has them; a press
	// on a page loaded earlier names a button that is gone.
	if !slices.ContainsFunc(c.Actions, func(a CheckRunAction) bool { return a.Identifier == p.Identifier }) {
		return nil, Webhook{}, fmt.Errorf("check run %d has no button %q now (reload the page)", id, p.Identifier)
	}
	event := map[string]any{
		"action":           "requested_action",
		"check_run":        rs.checkRunView(b, c),
		"requested_action": map[string]string{"identifier": p.Identifier},
		"repository":       NewRepository(b, rs.ref(), rs.openIssues()),
		"sender":           NewUser(b, p.Sender),
	}
	if s.app != nil {
		if inst, ok := s.app.installations[strings.ToLower(rs.owner)]; ok {
			event["installation"] = map[string]any{"id": inst, "node_id": NodeID("MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9u", inst)}
		}
	}
	payload, err := json.Marshal(event)
	return payload, s.webhook, err
}

// Person is someone the pull request's page offers to press a button as.
type Person struct {
	Login string
	// Permission is the login's on the repository: admin, write, read, or
	// "" for the author who is no collaborator.
	Permission string
}

// people is who the pull request's page offers to press a button as: the
// repository's collaborators and the pull request's author, by login; and
// the one chosen first, the first writer.
func (s *Server) people(owner, repo string, number int) ([]Person, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs, ps, ok := s.pullLocked(owner, repo, number)
	if !ok {
		return nil, ""
	}
	perms := maps.Clone(rs.collaborators)
	if _, ok := perms[strings.ToLower(ps.Author)]; !ok {
		perms[strings.ToLower(ps.Author)] = ""
	}
	var out []Person
	first := ""
	for _, login := range slices.Sorted(maps.Keys(perms)) {
		out = append(out, Person{Login: login, Permission: perms[login]})
		if first == "" && (perms[login] == "write" || perms[login] == "admin") {
			first = login
		}
	}
	return out, first
}

// pressHandler serves the control endpoint: JSON in and out, or the pull
// request page's form, which it sends back to the page saying what the
// receiver answered.
func (s *Server) pressHandler(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		writeControlJSON(w, http.StatusBadRequest, map[string]string{"message": "bad check run ID"})
		return
	}
	form := strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded")
	var p PressAs
	if form {
		r.Body = http.MaxBytesReader(w, r.Body, MaxRequestBody)
		if err := r.ParseForm(); err != nil {
			http.Error(w, "bad form", http.StatusBadRequest)
			return
		}
		p = PressAs{Identifier: r.PostForm.Get("identifier"), Sender: r.PostForm.Get("sender")}
	} else if err := ReadStrict(http.MaxBytesReader(w, r.Body, MaxRequestBody), &p); err != nil {
		writeControlJSON(w, http.StatusBadRequest, map[string]string{"message": "bad press: " + err.Error() + ` (want {"identifier","sender"})`})
		return
	}
	answer, err := s.PressCheckAction(r.Context(), BasesOf(r), r.PathValue("owner"), r.PathValue("repo"), id, p)
	if !form {
		if err != nil {
			writeControlJSON(w, http.StatusBadRequest, map[string]string{"message": err.Error()})
			return
		}
		writeControlJSON(w, http.StatusOK, answer)
		return
	}
	back := r.PostForm.Get("back")
	// A browser reads "/\host" as "//host": only a plain path of the sandbox.
	if !strings.HasPrefix(back, "/") || strings.HasPrefix(back, "//") || strings.ContainsAny(back, "\\\r\n\t") {
		back = "/" + r.PathValue("owner") + "/" + r.PathValue("repo")
	}
	q := url.Values{"pressed": {s.buttonLabel(r.PathValue("owner"), r.PathValue("repo"), id, p.Identifier)}, "as": {p.Sender}}
	switch {
	case err != nil:
		q.Set("answer", "not sent: "+err.Error())
	case answer.DeliveryError != "":
		q.Set("answer", "not delivered: "+answer.DeliveryError)
	default:
		q.Set("answer", fmt.Sprintf("the webhook answered %d%s", answer.Delivered, readableAnswer(answer.Response)))
	}
	http.Redirect(w, r, back+"?"+q.Encode()+"#checks", http.StatusSeeOther)
}

// buttonLabel is the label of the check run's button identifier, or the
// identifier itself when the button is gone.
func (s *Server) buttonLabel(owner, repo string, id int64, identifier string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rs, ok := s.repos[repoID(owner, repo)]; ok {
		for _, c := range rs.checkRuns {
			for _, a := range c.Actions {
				if c.ID == id && a.Identifier == identifier {
					return a.Label
				}
			}
		}
	}
	return identifier
}

// readableAnswer is a receiver's JSON answer's error or status, as a
// sentence's end; other answers are shown as they are.
func readableAnswer(body string) string {
	var a struct {
		Error  string `json:"error"`
		Status string `json:"status"`
	}
	switch {
	case body == "":
		return ""
	case json.Unmarshal([]byte(body), &a) != nil:
		return ": " + body
	case a.Error != "":
		return ": " + a.Error
	case a.Status != "":
		return ": " + a.Status
	}
	return ": " + body
}
