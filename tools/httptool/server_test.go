package httptool_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// secretToken is the static credential the tests configure; the server
// echoes it back, and it must never reach the model.
const secretToken = "sk-live-4f9Qz7TtS3cr3tV4lu3"

// fault is what the server does with one request, in the order requests
// arrive; requests past the script are served normally.
type fault int

const (
	serve fault = iota
	// loseAnswer: perform the effect and store its answer, then close the
	// connection without a word.
	loseAnswer
	// fail503: answer 503 before doing anything.
	fail503
	// fail504AfterEffect: perform the effect, then answer 504, as a proxy
	// whose backend was too slow.
	fail504AfterEffect
	// inFlight: answer 409, as a server still running a request with this key.
	inFlight
	// rateLimit: answer 429 with Retry-After: 7.
	rateLimit
	// redirect: answer 307 to another host.
	redirect
	// redirectAfterEffect: perform the effect and store its answer, then
	// answer 307 to another host, as a gateway moved after the write.
	redirectAfterEffect
	// seeOther: perform the effect and answer 303 See Other, naming the new
	// order; a repeat gets the same.
	seeOther
)

// stored is the answer a key earned, and the payload it was for.
type stored struct {
	status  int
	body    []byte
	payload [32]byte
}

// keyedServer honours Idempotency-Key as Stripe does: the first request with
// a key acts and stores its answer; a repeat with the same payload gets the
// stored answer and acts not again; a repeat with another payload gets 422.
type keyedServer struct {
	*httptest.Server
	mu       sync.Mutex
	script   []fault
	requests int
	effects  int
	keys     []string
	byKey    map[string]stored
	// arrived, when set, is closed as the first request arrives, which then
	// waits for release.
	arrived, release chan struct{}
	holdOnce         sync.Once
}

func newKeyedServer(t *testing.T, script ...fault) *keyedServer {
	t.Helper()
	return startKeyedServer(t, &keyedServer{script: script})
}

// newHoldingServer holds its first request until the test ends.
func newHoldingServer(t *testing.T) *keyedServer {
	t.Helper()
	s := startKeyedServer(t, &keyedServer{arrived: make(chan struct{}), release: make(chan struct{})})
	t.Cleanup(func() { close(s.release) })
	return s
}

func startKeyedServer(t *testing.T, s *keyedServer) *keyedServer {
	s.byKey = map[string]stored{}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

func (s *keyedServer) handle(w http.ResponseWriter, r *http.Request) {
	if s.arrived != nil {
		s.holdOnce.Do(func() {
			close(s.arrived)
			<-s.release
		})
	}
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests++
	key := r.Header.Get("Idempotency-Key")
	s.keys = append(s.keys, key)
	next := serve
	if len(s.script) > 0 {
		next, s.script = s.script[0], s.script[1:]
	}
	switch {
	case r.Header.Get("Authorization") != "Bearer "+secretToken:
		answerJSON(w, http.StatusUnauthorized, map[string]any{"error": "bad credentials", "got": r.Header.Get("Authorization")})
		return
	case key == "":
		answerJSON(w, http.StatusBadRequest, map[string]any{"error": "Idempotency-Key is required"})
		return
	case next == fail503:
		answerJSON(w, http.StatusServiceUnavailable, map[string]any{"error": "try later"})
		return
	case next == inFlight:
		answerJSON(w, http.StatusConflict, map[string]any{"error": "a request with this key is in progress"})
		return
	case next == rateLimit:
		w.Header().Set("Retry-After", "7")
		answerJSON(w, http.StatusTooManyRequests, map[string]any{"error": "slow down"})
		return
	case next == redirect:
		http.Redirect(w, r, "https://elsewhere.example/steal", http.StatusTemporaryRedirect)
		return
	}
	payload := sha256.Sum256(append([]byte(r.Method+" "+r.URL.RequestURI()+"\n"), body...))
	if prior, ok := s.byKey[key]; ok {
		if prior.payload != payload {
			answerJSON(w, http.StatusUnprocessableEntity, map[string]any{"error": "key reused with a different request"})
			return
		}
		w.Header().Set("Idempotent-Replayed", "true")
		writeRaw(w, prior.status, prior.body)
		return
	}
	s.effects++
	answer, _ := json.Marshal(map[string]any{
		"id": fmt.Sprintf("ord_%d", s.effects), "received": json.RawMessage(orNull(body)),
		"query": r.URL.Query(), "path": r.URL.Path, "echo": r.Header.Get("Authorization"),
	})
	if next == seeOther {
		// The stored answer keeps no Location: a repeat is told the order
		// exists by the 303 alone.
		s.byKey[key] = stored{status: http.StatusSeeOther, body: answer, payload: payload}
		w.Header().Set("Location", fmt.Sprintf("orders/ord_%d", s.effects))
		writeRaw(w, http.StatusSeeOther, answer)
		return
	}
	s.byKey[key] = stored{status: http.StatusCreated, body: answer, payload: payload}
	switch next {
	case redirectAfterEffect:
		http.Redirect(w, r, "https://elsewhere.example/steal", http.StatusTemporaryRedirect)
	case loseAnswer:
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
	case fail504AfterEffect:
		answerJSON(w, http.StatusGatewayTimeout, map[string]any{"error": "upstream timed out"})
	default:
		w.Header().Set("Location", fmt.Sprintf("orders/ord_%d", s.effects))
		writeRaw(w, http.StatusCreated, answer)
	}
}

func orNull(b []byte) []byte {
	if len(bytes.TrimSpace(b)) == 0 {
		return []byte("null")
	}
	return b
}

func answerJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	writeRaw(w, status, b)
}

func writeRaw(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

// counts are the server's requests and effects so far.
func (s *keyedServer) counts() (requests, effects int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests, s.effects
}

func (s *keyedServer) sentKeys() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.keys...)
}
