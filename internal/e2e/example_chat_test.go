package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/testkit"
)

// chatService is a chat service as examples/chattool's send_message calls
// it: POST /channels/C/messages takes {text, nonce} and answers the message
// with its ID and time; GET /channels/C/messages?limit=N lists the latest N,
// newest first, at most 100. With dropNext it makes the next message and
// closes the connection unanswered: the lost answer.
type chatService struct {
	mu       sync.Mutex
	messages []chatMessage // oldest first, one channel
	posts    int
	dropNext bool
}

type chatMessage struct {
	ID    string    `json:"id"`
	Text  string    `json:"text"`
	Nonce string    `json:"nonce"`
	At    time.Time `json:"at"`
}

func (s *chatService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.URL.Path != "/channels/releases/messages" {
		http.NotFound(w, r)
		return
	}
	if r.Method == http.MethodGet {
		limit, err := strconv.Atoi(r.URL.Query().Get("limit"))
		if err != nil || limit < 1 || limit > 100 {
			http.Error(w, "limit is 1 to 100", http.StatusBadRequest)
			return
		}
		latest := []chatMessage{}
		for i := len(s.messages) - 1; i >= 0 && len(latest) < limit; i-- {
			latest = append(latest, s.messages[i])
		}
		_ = json.NewEncoder(w).Encode(latest)
		return
	}
	var m chatMessage
	if err := json.NewDecoder(r.Body).Decode(&m); err != nil || m.Text == "" {
		http.Error(w, "a message needs text", http.StatusBadRequest)
		return
	}
	s.posts++
	m.ID, m.At = fmt.Sprintf("M-%d", len(s.messages)+1), time.Now().UTC()
	s.messages = append(s.messages, m)
	if s.dropNext {
		s.dropNext = false
		if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
			conn.Close()
		}
		return
	}
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(m)
}

// TestTheChatWorkerOfThePublicAPISendsOnAFullChannelOnceAfterALostAnswer
// runs examples/chattool's worker (agentworker.Main with its own tool, its
// own setting and a scripted model; a module that can import nothing
// internal) on a dev server that lacks agentrun's search attributes. The
// worker adds them, as the real worker does. A run of its announce agent on
// #releases, a channel already holding 100 messages, waits for alice; after
// her approval the service makes the message and drops the answer, and the
// run finds it by its nonce: one message, and status says it was found,
// not sent again, on #releases.
func TestTheChatWorkerOfThePublicAPISendsOnAFullChannelOnceAfterALostAnswer(t *testing.T) {
	bin := builder.Program(t, "chatworker", filepath.Join("examples", "chattool"), ".")
	starter := builder.Binaries(t).Starter
	server := testkit.StartServer(t, testkit.ServerOptions{NoSearchAttributes: true})
	svc := &chatService{dropNext: true}
	for i := range 100 {
		svc.messages = append(svc.messages, chatMessage{ID: fmt.Sprintf("M-%d", i+1), Text: "chatter", Nonce: fmt.Sprintf("n-%d", i),
			At: time.Now().UTC().Add(time.Duration(i-200) * time.Minute)})
	}
	chat := httptest.NewServer(svc)
	t.Cleanup(chat.Close)

	const queue = "agent-runs-chat"
	worker := StartProcess(t, ProcessSpec{Name: "chatworker", Binary: bin, Env: map[string]string{
		"TEMPORAL_ADDRESS": server.Address(), "AGENT_TASK_QUEUE": queue, "CHAT_URL": chat.URL,
	}})
	WaitUntilPolling(t, server.Client(), queue, worker)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	env := map[string]string{"TEMPORAL_ADDRESS": server.Address(), "AGENT_TASK_QUEUE": queue, "USER": "carol"}
	starterRun := func(args ...string) CommandResult {
		t.Helper()
		res, err := RunCommand(ctx, starter, env, args...)
		require.NoError(t, err)
		return res
	}

	started := starterRun("start", "--agent", "announce", "--target", "kind=chat_channel", "--target", "channel=releases",
		"--goal", "Version 2.4 is out", "--approver", "alice", "--json")
	require.Equal(t, 0, started.ExitCode, started.Stderr)
	var run struct {
		RunID string `json:"runId"`
	}
	require.NoError(t, json.Unmarshal([]byte(started.Stdout), &run), started.Stdout)
	waiting := WaitForStatus(t, server.Client(), run.RunID, api.RunWaitingForUser, runTimeout)
	require.Equal(t, `Send to #releases: "Version 2.4 is out"`, waiting.PendingAction.Preview)
	approved := starterRun("approve", run.RunID, "--action", waiting.PendingAction.ID, "--as", "alice")
	require.Equal(t, 0, approved.ExitCode, approved.Stderr)
	res := WaitForResult(t, server.Client(), run.RunID, runTimeout)
	require.Equal(t, api.RunCompleted, res.Status)

	svc.mu.Lock()
	var ours []chatMessage
	for _, m := range svc.messages {
		if m.Text == "Version 2.4 is out" {
			ours = append(ours, m)
		}
	}
	total, posts := len(svc.messages), svc.posts
	svc.mu.Unlock()
	require.Len(t, ours, 1, "one message")
	require.Equal(t, 1, posts, "sent once: the lost answer was reconciled, not resent")
	require.Equal(t, 101, total)
	status := starterRun("status", run.RunID)
	require.Equal(t, 0, status.ExitCode, status.Stderr)
	require.Contains(t, status.Stdout, "done      found message "+ours[0].ID+" (already sent before the answer was lost) on #releases, approved by alice")
	require.False(t, strings.Contains(status.Stdout, "#0"), status.Stdout)
	require.Contains(t, worker.LogTail(), "added the search attributes the namespace lacked")
}
