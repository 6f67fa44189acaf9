package testkit

import (
	"fmt"
	"os"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"
)

// The test binary's one shared server. It is process state by nature: every
// test of the binary reaches the same server, and RunTests, which owns the
// binary's lifetime, stops it.
var shared struct {
	mu sync.Mutex
	// mainRuns is set by RunTests: without it nothing would stop the server.
	mainRuns bool
	server   *Server
	// err is the failed start, which every later test reports at once
	// instead of paying for another try.
	err error
}

// RunTests is a package's TestMain body when its tests take SharedServer:
// it runs the tests, then stops the shared server, so that no dev server
// outlives the test binary. (Main calls it too.)
func RunTests(m *testing.M) {
	shared.mu.Lock()
	shared.mainRuns = true
	shared.mu.Unlock()
	code := m.Run()
	if err := stopShared(); err != nil {
		fmt.Fprintf(os.Stderr, "testkit: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// SharedServer is the test binary's one in-memory dev server, started by
// the first test that asks, with what StartServer gives by default
// (agentrun's search attributes, the tuned limits). Tests on it share the
// namespace: each must use task queues, workflow IDs and deployment names of
// its own (Unique), and must not assert on what the namespace as a whole
// holds (an inbox, a list by status). A test that needs server options, a
// restart, or a namespace to itself keeps StartServer. Like NeedsDevServer it
// skips in -short mode; like TemporalCLI it skips, or fails when CI is set,
// without the CLI. The package's TestMain must call RunTests.
func SharedServer(t testing.TB) *Server {
	t.Helper()
	NeedsDevServer(t)
	TemporalCLI(t)
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if !shared.mainRuns {
		t.Fatalf("testkit: SharedServer needs the package's TestMain to call testkit.RunTests (or testkit.Main), which stops the server")
	}
	if shared.err != nil {
		t.Fatalf("testkit: the shared dev server did not start: %v", shared.err)
	}
	if shared.server == nil {
		s := newServer(t, ServerOptions{})
		// The server outlives the test that started it: nothing may use
		// that test's t after it ends.
		s.t, s.shared = nil, true
		if err := s.start(); err != nil {
			shared.err = err
			t.Fatalf("testkit: the shared dev server did not start: %v", err)
		}
		shared.server = s
	}
	s := shared.server
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("shared dev server output (tail, all tests):\n%s", s.output.String())
		}
	})
	return s
}

func stopShared() error {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	s := shared.server
	if s == nil {
		return nil
	}
	shared.server = nil
	s.client.Close()
	return s.stop()
}

var uniqueSeq atomic.Int64

var notInName = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// Unique is base joined to the test's name and a number no other call in
// this test binary returns: a task queue, workflow ID or deployment name
// that no other test on a shared server, nor a rerun of this one under
// -count, meets.
func Unique(t testing.TB, base string) string {
	return fmt.Sprintf("%s-%s-%d", base, notInName.ReplaceAllString(t.Name(), "_"), uniqueSeq.Add(1))
}

// KitServer is the shared server when the package's TestMain runs RunTests,
// and otherwise a server of the test's own: for the conformance kit
// (tooltest), whose users' packages may have no TestMain.
func KitServer(t testing.TB) *Server {
	t.Helper()
	shared.mu.Lock()
	runs := shared.mainRuns
	shared.mu.Unlock()
	if runs {
		return SharedServer(t)
	}
	NeedsDevServer(t)
	return StartServer(t, ServerOptions{})
}
