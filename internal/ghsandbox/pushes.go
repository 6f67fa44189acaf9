package ghsandbox

import (
	"bytes"
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ControlPullEventsPath is where POST changes a pull request as a person
// would on GitHub (opens, pushes to, force-pushes, closes or reopens it)
// and sends the pull_request delivery GitHub would send for it (PullEvent).
const ControlPullEventsPath = "/_sandbox/pulls/{owner}/{repo}/{number}/events"

// The pull_request actions the control endpoint makes.
const (
	PullOpened      = "opened"
	PullSynchronize = "synchronize"
	PullClosed      = "closed"
	PullReopened    = "reopened"
)

// PullEvent is the body of POST ControlPullEventsPath.
type PullEvent struct {
	// Action is opened (the pull request as it stands, open), synchronize
	// (Commits pushed on its head), closed or reopened.
	Action string `json:"action"`
	// Commits are pushed, oldest first, for synchronize: each changes the
	// files it names (a file's patch is its whole diff against the base,
	// as the pull request's files show it).
	Commits []PushedCommit `json:"commits,omitempty"`
	// Force replaces the head (a force-push or a rebase): the old head is
	// no longer an ancestor of the new one, and the pull request's files
	// are only the commits'.
	Force bool `json:"force,omitempty"`
	// Sender is who acted; default the pull request's author.
	Sender string `json:"sender,omitempty"`
}

// PushedCommit is one commit of a push.
type PushedCommit struct {
	Message string        `json:"message"`
	Files   []FixtureFile `json:"files"`
}

// Webhook is where the sandbox sends its deliveries, signed as GitHub
// signs them with Secret (X-Hub-Signature-256).
type Webhook struct {
	URL    string
	Secret string
}

// SetWebhook sends every later delivery to w; an empty URL sends none.
func (s *Server) SetWebhook(w Webhook) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.webhook = w
}

// PullEventAnswer is what the control endpoint answers: the head after the
// event and the delivery it sent.
type PullEventAnswer struct {
	Action     string `json:"action"`
	Before     string `json:"before,omitempty"`
	Head       string `json:"head"`
	DeliveryID string `json:"deliveryId,omitempty"`
	// Delivered is the receiver's status; 0 when nothing was sent (no
	// webhook) or the receiver did not answer (DeliveryError says why).
	Delivered int `json:"delivered"`
	// Response is the receiver's answer (its first KiB), as GitHub's
	// delivery log shows it: the approval server names the run it started.
	Response      string `json:"response,omitempty"`
	DeliveryError string `json:"deliveryError,omitempty"`
}

// ApplyPullEvent changes the pull request as ev says and sends the
// pull_request delivery for it to the webhook, as GitHub would; b makes
// the delivery's URLs.
func (s *Server) ApplyPullEvent(ctx context.Context, b Bases, owner, repo string, number int, ev PullEvent) (PullEventAnswer, error) {
	payload, answer, hook, err := s.applyPullEvent(b, owner, repo, number, ev)
	if err != nil {
		return PullEventAnswer{}, err
	}
	if hook.URL == "" {
		answer.DeliveryError = "no webhook: set SANDBOX_WEBHOOK_URL"
		return answer, nil
	}
	answer.DeliveryID = newDeliveryID()
	answer.Delivered, answer.Response, err = deliver(ctx, hook, "pull_request", answer.DeliveryID, payload)
	if err != nil {
		answer.DeliveryError = err.Error()
	}
	return answer, nil
}

func (s *Server) applyPullEvent(b Bases, owner, repo string, number int, ev PullEvent) ([]byte, PullEventAnswer, Webhook, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs, ps, ok := s.pullLocked(owner, repo, number)
	if !ok {
		return nil, PullEventAnswer{}, Webhook{}, fmt.Errorf("no pull request %s/%s#%d in the sandbox", owner, repo, number)
	}
	before := ps.HeadSHA
	extra := map[string]any{}
	switch ev.Action {
	case PullOpened, PullReopened:
		if len(ev.Commits) > 0 || ev.Force {
			return nil, PullEventAnswer{}, Webhook{}, errors.New(ev.Action + " takes no commits: push them with synchronize")
		}
		ps.State = "open"
	case PullClosed:
		if len(ev.Commits) > 0 || ev.Force {
			return nil, PullEventAnswer{}, Webhook{}, errors.New("closed takes no commits")
		}
		ps.State = "closed"
	case PullSynchronize:
		if len(ev.Commits) == 0 {
			return nil, PullEventAnswer{}, Webhook{}, errors.New("synchronize needs at least one commit")
		}
		if ps.State != "open" {
			return nil, PullEventAnswer{}, Webhook{}, errors.New("the pull request is closed: reopen it first")
		}
		s.headCommitLocked(rs, ps)
		sender := cmp.Or(ev.Sender, ps.Author)
		if err := pushCommits(ps, ev.Commits, ev.Force, func(c commitRecord) {
			c.Author, c.At = sender, time.Now().UTC().Truncate(time.Second)
			s.recordCommitLocked(rs.owner, rs.name, c)
		}); err != nil {
			return nil, PullEventAnswer{}, Webhook{}, err
		}
		extra["before"], extra["after"] = before, ps.HeadSHA
	default:
		return nil, PullEventAnswer{}, Webhook{}, fmt.Errorf("action %q: want opened, synchronize, closed or reopened", ev.Action)
	}
	sender := ev.Sender
	if sender == "" {
		sender = ps.Author
	}
	event := map[string]any{
		"action":       ev.Action,
		"number":       ps.Number,
		"pull_request": NewPullRequest(b, rs.ref(), rs.pullFacts(ps), rs.openIssues()),
		"repository":   NewRepository(b, rs.ref(), rs.openIssues()),
		"sender":       NewUser(b, sender),
	}
	if s.app != nil {
		if id, ok := s.app.installations[strings.ToLower(rs.owner)]; ok {
			event["installation"] = map[string]any{"id": id, "node_id": NodeID("MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9u", id)}
		}
	}
	for k, v := range extra {
		event[k] = v
	}
	payload, err := json.Marshal(event)
	if err != nil {
		return nil, PullEventAnswer{}, Webhook{}, err
	}
	answer := PullEventAnswer{Action: ev.Action, Head: ps.HeadSHA}
	if ev.Action == PullSynchronize {
		answer.Before = before
	}
	return payload, answer, s.webhook, nil
}

// pushCommits moves the head past commits: each commit's ID is derived from
// its parent and content, as a Git commit's is. A push adds to the pull
// request's files; a force-push replaces them.
func pushCommits(ps *pullState, commits []PushedCommit, force bool, record func(commitRecord)) error {
	parent := ps.HeadSHA
	if force {
		parent = ps.BaseSHA
		ps.Files = nil
	}
	for _, c := range commits {
		if strings.TrimSpace(c.Message) == "" || len(c.Files) == 0 {
			return errors.New("each commit needs a message and at least one file")
		}
		h := sha1.New()
		fmt.Fprintf(h, "parent %s\n%s\n", parent, c.Message)
		for _, f := range c.Files {
			if f.Filename == "" || f.Status == "" {
				return errors.New("each file needs a filename and a status")
			}
			fmt.Fprintf(h, "%s\x00%s\x00%s\x00", f.Filename, f.Status, f.Patch)
			ps.Files = upsertFile(ps.Files, f)
		}
		sha := hex.EncodeToString(h.Sum(nil))
		record(commitRecord{SHA: sha, Parent: parent, Message: c.Message, Files: slices.Clone(c.Files)})
		parent = sha
	}
	ps.HeadSHA = parent
	ps.additions, ps.deletions = 0, 0
	for _, f := range ps.Files {
		add, del := CountLines(f.Patch)
		ps.additions += add
		ps.deletions += del
	}
	return nil
}

func upsertFile(files []FixtureFile, f FixtureFile) []FixtureFile {
	for i := range files {
		if files[i].Filename == f.Filename {
			files[i] = f
			return files
		}
	}
	return append(files, f)
}

// maxShownResponse bounds the receiver's answer kept in a delivery's answer.
const maxShownResponse = 1 << 10

// deliver POSTs payload as GitHub's webhook does, and returns the
// receiver's status and the start of its answer.
func deliver(ctx context.Context, hook Webhook, event, id string, payload []byte) (int, string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second) // GitHub gives a receiver 10 s
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, hook.URL, bytes.NewReader(payload))
	if err != nil {
		return 0, "", fmt.Errorf("webhook URL: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "GitHub-Hookshot/sandbox")
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", id)
	req.Header.Set("X-GitHub-Hook-ID", "1")
	if hook.Secret != "" {
		mac := hmac.New(sha256.New, []byte(hook.Secret))
		mac.Write(payload)
		req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", fmt.Errorf("deliver %s: %w", event, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxShownResponse))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	return resp.StatusCode, strings.TrimSpace(string(body)), nil
}

// newDeliveryID is a GUID, as GitHub's X-GitHub-Delivery is.
func newDeliveryID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

func (s *Server) pullEventHandler(w http.ResponseWriter, r *http.Request) {
	var ev PullEvent
	if err := ReadStrict(http.MaxBytesReader(w, r.Body, MaxRequestBody), &ev); err != nil {
		writeControlJSON(w, http.StatusBadRequest, map[string]string{
			"message": "bad event: " + err.Error() + ` (want {"action","commits":[{"message","files":[{"filename","status","patch"}]}],"force","sender"})`,
		})
		return
	}
	number, err := strconv.Atoi(r.PathValue("number"))
	if err != nil || number <= 0 {
		writeControlJSON(w, http.StatusBadRequest, map[string]string{"message": "bad pull request number"})
		return
	}
	answer, err := s.ApplyPullEvent(r.Context(), BasesOf(r), r.PathValue("owner"), r.PathValue("repo"), number, ev)
	if err != nil {
		writeControlJSON(w, http.StatusBadRequest, map[string]string{"message": err.Error()})
		return
	}
	writeControlJSON(w, http.StatusOK, answer)
}
