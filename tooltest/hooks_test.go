package tooltest_test

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/agentrun/agentrun/tools"
	"github.com/agentrun/agentrun/tooltest"
)

// hookedNotes is the notes service with the kit's fault hooks built in, as
// an author's fake that is no HTTP service (or that wants no proxy) has
// them: the kit reaches it through tooltest.Faults alone.
type hookedNotes struct {
	svc *notes

	mu       sync.Mutex
	lose     *int
	hold     time.Duration
	refuse   bool
	inFlight sync.WaitGroup
}

func (h *hookedNotes) LoseNextAnswer(status int) { h.mu.Lock(); h.lose = &status; h.mu.Unlock() }

func (h *hookedNotes) HoldNextCreate(d time.Duration) { h.mu.Lock(); h.hold = d; h.mu.Unlock() }

func (h *hookedNotes) RefuseNextList() { h.mu.Lock(); h.refuse = true; h.mu.Unlock() }

func (h *hookedNotes) Effects() int { return h.svc.count() }

func (h *hookedNotes) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	var (
		lose   *int
		hold   time.Duration
		refuse bool
	)
	if r.Method == http.MethodPost {
		lose, hold, h.lose, h.hold = h.lose, h.hold, nil, 0
	} else {
		refuse, h.refuse = h.refuse, false
	}
	h.mu.Unlock()
	switch {
	case refuse:
		http.Error(w, "not now", http.StatusServiceUnavailable)
	case hold > 0:
		// The note is kept once the hold ends, whoever still waits.
		h.inFlight.Add(1)
		defer h.inFlight.Done()
		<-time.After(hold)
		h.svc.ServeHTTP(w, r)
	case lose != nil:
		h.svc.ServeHTTP(httptest.NewRecorder(), r)
		switch {
		case *lose == 0:
			panic(http.ErrAbortHandler)
		case *lose/100 == 3:
			w.Header().Set("Location", r.URL.Path)
		}
		w.WriteHeader(*lose)
	default:
		h.svc.ServeHTTP(w, r)
	}
}

func TestAFakeWithItsOwnHooksRunsTheKitWithoutAProxy(t *testing.T) {
	tooltest.Run(t, tooltest.Kit{
		Target: queue,
		Args:   `{"text":"hello"}`,
		Edited: `{"text":"hello, edited"}`,
		New: func(t testing.TB) (tools.Action, tooltest.Fake) {
			fake := &hookedNotes{svc: &notes{}}
			srv := httptest.NewServer(fake)
			t.Cleanup(srv.Close)
			return keepNote{base: srv.URL}, fake
		},
	})
}
