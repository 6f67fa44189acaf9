package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/internal/testkit"
)

// outOfOrderPanels serves the run page's own script on a page whose panel
// answers out of order: the panel fetched on the first event answers only
// after the run has moved on and a second event was sent.
type outOfOrderPanels struct {
	mu sync.Mutex
	// state is the run's, as the panel shows it when its request arrives.
	state    int
	requests int
	// firstArrived is closed when the first panel request arrives; release
	// lets it answer; secondArrived is closed when a second one arrives.
	firstArrived, release, secondArrived chan struct{}
}

func (p *outOfOrderPanels) ServeHTTP(w http.ResponseWriter, r *http.Request, script []byte) {
	switch r.URL.Path {
	case "/":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><div id="run" data-run-id="r1" data-ended="false">`+
			`<p id="decision-result" hidden></p><div id="panel"><section data-part="status" data-key=""><span id="state">0</span></section></div></div>`+
			// What each swap of the panel left on the page, in order.
			`<script>window.swaps = []; new MutationObserver(function () { window.swaps.push(document.getElementById("state").textContent); })`+
			`.observe(document.getElementById("panel"), {childList: true, subtree: true});</script>`+
			`<script src="/static/run.js"></script>`)
	case "/static/run.js":
		w.Header().Set("Content-Type", "text/javascript")
		w.Write(script)
	case "/runs/r1/events":
		w.Header().Set("Content-Type", "text/event-stream")
		flusher := w.(http.Flusher)
		p.setState(1)
		fmt.Fprint(w, "data: 1\n\n")
		flusher.Flush()
		select {
		case <-p.firstArrived:
		case <-r.Context().Done():
			return
		}
		p.setState(2)
		fmt.Fprint(w, "data: 2\n\n")
		flusher.Flush()
		<-r.Context().Done()
	case "/runs/r1/panel":
		p.mu.Lock()
		p.requests++
		n, state := p.requests, p.state
		p.mu.Unlock()
		switch n {
		case 1:
			close(p.firstArrived)
			<-p.release
		case 2:
			close(p.secondArrived)
		}
		fmt.Fprintf(w, `<section data-part="status" data-key=""><span id="state">%d</span></section>`, state)
	case "/favicon.ico":
		w.WriteHeader(http.StatusNoContent)
	default:
		http.NotFound(w, r)
	}
}

func (p *outOfOrderPanels) setState(s int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.state = s
}

// TestRunPageNeverEndsOnAnOlderPanelThanTheNewest: a panel fetched on an
// earlier event that answers after a later one must not be the one left on
// the page, which would show a finished run as still running with no event
// left to correct it. Before the page fetched one panel at a time, the
// second fetch answered first and the late first one was swapped in last.
func TestRunPageNeverEndsOnAnOlderPanelThanTheNewest(t *testing.T) {
	root, err := testkit.RepoRoot()
	require.NoError(t, err)
	script, err := os.ReadFile(filepath.Join(root, "internal", "approvalsrv", "web", "static", "run.js"))
	require.NoError(t, err)
	p := &outOfOrderPanels{firstArrived: make(chan struct{}), release: make(chan struct{}), secondArrived: make(chan struct{})}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { p.ServeHTTP(w, r, script) }))
	// Cleanups run last first: the browser (newBrowser's) goes before the
	// server, which waits for the page's event stream to close.
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(p.release) }) // a failed test must not leave the first panel hanging

	ctx := newBrowser(t, map[string]any{})
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")))
	select {
	case <-p.firstArrived:
	case <-ctx.Done():
		t.Fatal("the page never fetched its panel")
	}
	// The page asks for the second event's panel at once if it fetches
	// several at a time; one at a time, it waits for the first to answer.
	select {
	case <-p.secondArrived:
	case <-time.After(2 * time.Second):
	}
	p.release <- struct{}{}

	// Both panels are swapped in, in whichever order the page applies them.
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`window.swaps.length >= 2`, chromedp.WithPollingTimeout(10*time.Second)))
	require.NoError(t, err)
	swaps, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.swaps`))
	require.NoError(t, err)
	require.Equal(t, "2", swaps[len(swaps)-1], "the newest panel is swapped in last: %v", swaps)
	shown, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("state").textContent`))
	require.NoError(t, err)
	require.Equal(t, "2", shown)
}
