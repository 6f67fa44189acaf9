package chat_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentrun/agentrun/examples/chattool/chat"
)

// service is a fake chat service: it stores messages per channel, takes a
// nonce it never checks, and lists only the latest ones. dropNext makes
// the next message and then drops the connection unanswered: a lost
// answer.
type service struct {
	mu       sync.Mutex
	channels map[string][]chat.Message // oldest first
	posts    int
	dropNext bool
	now      func() time.Time
}

func newService(now func() time.Time) *service {
	return &service{channels: map[string][]chat.Message{}, now: now}
}

// fill gives channel n messages, the newest at newest, a minute apart.
func (s *service) fill(channel string, n int, newest time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := n - 1; i >= 0; i-- {
		s.channels[channel] = append(s.channels[channel], chat.Message{ID: fmt.Sprintf("M-%d", len(s.channels[channel])+1),
			Text: "chatter", Nonce: fmt.Sprintf("other-%d", i), At: newest.Add(-time.Duration(i) * time.Minute)})
	}
}

func (s *service) messages(channel string) []chat.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]chat.Message(nil), s.channels[channel]...)
}

func (s *service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	channel, ok := strings.CutSuffix(strings.TrimPrefix(r.URL.Path, "/channels/"), "/messages")
	if !ok {
		http.NotFound(w, r)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch r.Method {
	case http.MethodGet:
		limit, err := strconv.Atoi(r.URL.Query().Get("limit"))
		if err != nil || limit < 1 || limit > chat.Latest {
			http.Error(w, `{"error":"limit is 1 to 100"}`, http.StatusBadRequest)
			return
		}
		all := s.channels[channel]
		var latest []chat.Message
		for i := len(all) - 1; i >= 0 && len(latest) < limit; i-- {
			latest = append(latest, all[i])
		}
		_ = json.NewEncoder(w).Encode(latest)
	case http.MethodPost:
		var m chat.Message
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil || m.Text == "" {
			http.Error(w, `{"error":"a message needs text"}`, http.StatusBadRequest)
			return
		}
		s.posts++
		m.ID, m.At = fmt.Sprintf("M-%d", len(s.channels[channel])+1), s.now()
		s.channels[channel] = append(s.channels[channel], m)
		if s.dropNext {
			s.dropNext = false
			conn, _, _ := http.NewResponseController(w).Hijack()
			_ = conn.Close()
			return
		}
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(m)
	default:
		http.Error(w, "", http.StatusMethodNotAllowed)
	}
}
