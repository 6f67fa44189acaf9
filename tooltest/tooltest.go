// Package tooltest is the conformance kit for an action (tools.Action): it
// runs the action through the fault matrix the built-in actions pass, on a
// real Temporal dev server, against the author's fake of the system the
// action changes. No GitHub and no model are needed.
//
// Each fault is one run of a one-tool agent whose scripted model calls the
// action once, gated by approval; faults run in parallel, each over a fake
// of its own. For every fault the kit asserts that the effect happened
// exactly once, that each Reconcile answered right (found, not_created or
// cannot_tell for what the fake held when it looked), that a look the
// fake refused never answered not_created, and that every Execute and
// Reconcile of the step was told the same Call.KeyRecordedAt and an
// Attempt counting up from 1.
//
// The fake gives the kit its Faults (or sits behind a Proxy, which serves
// them for any HTTP service) and counts its Effects. A test is:
//
//	func TestSendMessageConforms(t *testing.T) {
//		tooltest.Run(t, tooltest.Kit{
//			Target: channel,
//			Args:   `{"text":"hello"}`,
//			New: func(t testing.TB) (tools.Action, tooltest.Fake) {
//				chat := newFakeChat(t)
//				return NewSendMessage(chat.URL), chat
//			},
//		})
//	}
//
// examples/chattool/chat/conformance_test.go and
// examples/customtool/tickets/conformance_test.go are such tests, each
// over a fake HTTP service behind NewProxy.
//
// The test binary's dev server is the Temporal CLI's (bin/temporal, or
// $AGENTRUN_TEST_TEMPORAL_CLI); a package whose TestMain calls Main shares
// one server among all its tests, otherwise each Run starts its own.
package tooltest

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/temporalclient"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/tools"
)

// Fake is the author's fake of the system the action changes: the fault
// hooks, and a count of the effects it holds.
type Fake interface {
	Faults
	// Effects is how many effects of the action the fake holds (messages
	// sent, tickets filed): the kit asserts one per fault.
	Effects() int
}

// Kit is one action under test.
type Kit struct {
	// New makes the action over a new, empty fake of its system. Every
	// fault calls it once, and faults run in parallel.
	New func(t testing.TB) (tools.Action, Fake)
	// Target is the run's target, of the kind the action acts on.
	Target api.Target
	// Args are the call's arguments, as a model would write them.
	Args string
	// Edited are the arguments an approver edits the call to; empty leaves
	// out the edited approval (an action an approver may not edit).
	Edited string
	// Faults names the faults to run; empty runs every one (FaultNames).
	Faults []string
}

// Result is what one fault showed.
type Result struct {
	Fault string
	// Answers are the Reconcile answers the run got, in order ("error" for
	// a look that failed), and "operator" where the kit, as the operator,
	// resolved a run that could not tell.
	Answers []string
	// Attempts counts the attempts the action's Execute saw.
	Attempts int
	// Problems are the broken promises; none means the fault passed.
	Problems []string
}

// Passed says the fault broke no promise.
func (r Result) Passed() bool { return len(r.Problems) == 0 }

// Cell is the result as one cell of the conformance table: FAIL, or the
// answer that settled the step, after the first answer when that one
// differs and is no not_created (a refused look's "error", a
// "cannot_tell" an operator resolved). A not_created before a late
// effect is found is left out: how many looks precede it is timing.
func (r Result) Cell() string {
	if !r.Passed() {
		return "FAIL"
	}
	if len(r.Answers) == 0 || (r.Fault == "replayed approval" && r.Attempts == 1) {
		// A replay's attempt that a slow machine timed out is looked for,
		// and found: still the one attempt the cell is about.
		return "sent once"
	}
	first, last := r.Answers[0], r.Answers[len(r.Answers)-1]
	if first != last && first != api.ReconcileNotCreated {
		return first + " → " + last
	}
	return last
}

// Main is a test package's TestMain body when its tests share one dev
// server: it runs the tests, then stops the server.
func Main(m *testing.M) { testkit.RunTests(m) }

// Run runs the fault matrix and fails t for every promise the action
// breaks, naming the fault.
func Run(t *testing.T, k Kit) []Result {
	t.Helper()
	results := Check(t, k)
	for _, r := range results {
		t.Run(r.Fault, func(t *testing.T) {
			for _, p := range r.Problems {
				t.Errorf("%s", p)
			}
		})
	}
	return results
}

// Check runs the fault matrix and returns what each fault showed, without
// failing t for a broken promise (it fails t only when the kit itself
// cannot run). A test of a broken action asserts on its problems.
func Check(t *testing.T, k Kit) []Result {
	t.Helper()
	if k.New == nil || k.Args == "" {
		t.Fatalf("tooltest: a Kit needs New and Args")
	}
	if _, err := (api.RunInput{}).WithTarget(k.Target).RunTarget(); err != nil {
		t.Fatalf("tooltest: Kit.Target: %v", err)
	}
	for _, name := range k.Faults {
		if !slices.Contains(FaultNames(), name) {
			t.Fatalf("tooltest: no fault %q (there are %s)", name, strings.Join(FaultNames(), ", "))
		}
	}
	if !json.Valid([]byte(k.Args)) || (k.Edited != "" && !json.Valid([]byte(k.Edited))) {
		t.Fatalf("tooltest: Args and Edited must be JSON objects")
	}
	testkit.NeedsDevServer(t)
	server := testkit.KitServer(t)
	// The faults make the workers log errors by design; their log is shown
	// only when the kit fails.
	logs := testkit.NewTailBuffer(64 << 10)
	c, err := temporalclient.Dial(t.Context(), server.Config(),
		slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err != nil {
		t.Fatalf("tooltest: %v", err)
	}
	t.Cleanup(func() {
		c.Close()
		if t.Failed() {
			t.Logf("the kit's workers' log (tail):\n%s", logs.String())
		}
	})
	// The faults run at once, each on a run, worker and fake of its own:
	// they mostly wait on the server and on their faults' timers.
	var (
		cases   []*kase
		results []Result
	)
	for _, f := range matrix {
		if (len(k.Faults) > 0 && !slices.Contains(k.Faults, f.name)) || (f.edits && k.Edited == "") {
			continue
		}
		cases = append(cases, newCase(t, c, k, f))
		results = append(results, Result{Fault: f.name})
	}
	errs := make([]error, len(cases))
	var wg sync.WaitGroup
	for i, c := range cases {
		wg.Go(func() { errs[i] = c.run(t.Context(), &results[i]) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("tooltest: %s: %v", results[i].Fault, err)
		}
	}
	return results
}

// FaultNames are the faults of the matrix, in the order they run.
func FaultNames() []string {
	names := make([]string, len(matrix))
	for i, f := range matrix {
		names[i] = f.name
	}
	return names
}

// problem records a broken promise, once however often it was broken.
func (r *Result) problem(format string, args ...any) {
	if p := fmt.Sprintf(format, args...); !slices.Contains(r.Problems, p) {
		r.Problems = append(r.Problems, p)
	}
}
