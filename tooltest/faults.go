package tooltest

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"
	"time"
)

// Faults are the hooks the kit needs in a fake of the system an action
// changes. Each arms one fault for the next request of its kind only; the
// kit arms one at a time and waits for it to be met.
//
// A fake served over HTTP needs none of them: put a Proxy in front of it.
type Faults interface {
	// LoseNextAnswer makes the next create take effect and then lose its
	// answer: status 0 closes the connection unanswered, a 3xx answers a
	// redirect to the request's own URL, any other status answers that
	// status with no result.
	LoseNextAnswer(status int)
	// HoldNextCreate holds the next create for d before it takes effect;
	// it takes effect even when its client has gone meanwhile (it lands
	// late), and then answers a client still waiting.
	HoldNextCreate(d time.Duration)
	// RefuseNextList makes the next look (the read Reconcile makes) fail
	// without looking: a 503, or whatever the system answers when it will
	// not say.
	RefuseNextList()
}

// Proxy is an HTTP fault proxy: a reverse proxy in front of any HTTP
// service that injects the Faults, so that the service's fake needs no
// hooks of its own. The action under test calls URL instead of the
// service. Requests the kit arms no fault for pass through unchanged.
type Proxy struct {
	// URL is where the action sends its requests.
	URL string
	// IsCreate says a request is a create (the one that makes the effect);
	// nil means every method but GET and HEAD. body is the request's body,
	// which the proxy still forwards.
	IsCreate func(r *http.Request, body []byte) bool
	// IsLook says a request that is no create is a look (what Reconcile
	// reads); nil means every one. Requests that are neither (a
	// protocol's handshake) pass through untouched.
	IsLook func(r *http.Request, body []byte) bool

	proxy *httputil.ReverseProxy
	mu    sync.Mutex
	lose  *int
	hold  time.Duration
	// refuse is the next look's fault.
	refuse bool
	// landing counts held creates not yet landed.
	landing sync.WaitGroup
}

// NewProxy serves a fault proxy in front of target (a base URL) until t
// ends; it waits for every held create to land before it stops.
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatalf("tooltest: proxy target %q: %v", target, err)
	}
	p := &Proxy{proxy: httputil.NewSingleHostReverseProxy(u)}
	p.proxy.ErrorHandler = func(w http.ResponseWriter, _ *http.Request, err error) {
		http.Error(w, "tooltest proxy: "+err.Error(), http.StatusBadGateway)
	}
	srv := httptest.NewServer(p)
	t.Cleanup(func() {
		p.landing.Wait()
		srv.Close()
	})
	p.URL = srv.URL
	return p
}

// LoseNextAnswer implements Faults.
func (p *Proxy) LoseNextAnswer(status int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lose = &status
}

// HoldNextCreate implements Faults.
func (p *Proxy) HoldNextCreate(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.hold = d
}

// RefuseNextList implements Faults.
func (p *Proxy) RefuseNextList() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refuse = true
}

// Armed reports whether a fault waits for its request.
func (p *Proxy) Armed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lose != nil || p.hold > 0 || p.refuse
}

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "tooltest proxy: read the request", http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	create := r.Method != http.MethodGet && r.Method != http.MethodHead
	if p.IsCreate != nil {
		create = p.IsCreate(r, body)
	}
	p.mu.Lock()
	var (
		lose   *int
		hold   time.Duration
		refuse bool
	)
	switch {
	case create:
		lose, hold = p.lose, p.hold
		p.lose, p.hold = nil, 0
	case p.IsLook == nil || p.IsLook(r, body):
		refuse, p.refuse = p.refuse, false
	}
	p.mu.Unlock()
	switch {
	case refuse:
		http.Error(w, "tooltest: the look is refused", http.StatusServiceUnavailable)
	case hold > 0:
		p.landLate(w, r, body, hold)
	case lose != nil:
		p.loseAnswer(w, r, *lose)
	default:
		p.proxy.ServeHTTP(w, r)
	}
}

// landLate holds the request, then forwards it whether or not its client
// is still there.
func (p *Proxy) landLate(w http.ResponseWriter, r *http.Request, body []byte, d time.Duration) {
	p.landing.Add(1)
	done := make(chan struct{})
	rec := httptest.NewRecorder()
	go func() {
		defer p.landing.Done()
		defer close(done)
		<-time.After(d) // the fault itself: the service holds the request
		late := r.Clone(context.WithoutCancel(r.Context()))
		late.Body = io.NopCloser(bytes.NewReader(body))
		p.proxy.ServeHTTP(rec, late)
	}()
	select {
	case <-done:
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	case <-r.Context().Done():
	}
}

// loseAnswer forwards the request, so that it takes effect, and loses the
// answer.
func (p *Proxy) loseAnswer(w http.ResponseWriter, r *http.Request, status int) {
	rec := httptest.NewRecorder()
	p.proxy.ServeHTTP(rec, r)
	switch {
	case status == 0:
		// Closes the connection without an answer (net/http's abort).
		panic(http.ErrAbortHandler)
	case status >= 300 && status < 400:
		w.Header().Set("Location", r.URL.String())
		w.WriteHeader(status)
	default:
		http.Error(w, "tooltest: the answer is lost", status)
	}
}
