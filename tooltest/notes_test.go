package tooltest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
	"github.com/agentrun/agentrun/tooltest"
)

// notes is a fake notes service with no hooks of its own: POST /notes
// keeps a note, GET /notes?key=K lists the notes that carry K. The kit
// reaches it through a Proxy.
type notes struct {
	mu   sync.Mutex
	kept []note
}

type note struct {
	Key  string `json:"key"`
	Text string `json:"text"`
}

func (s *notes) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch r.Method {
	case http.MethodPost:
		var n note
		if err := json.NewDecoder(r.Body).Decode(&n); err != nil {
			http.Error(w, "bad note", http.StatusBadRequest)
			return
		}
		s.kept = append(s.kept, n)
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(n)
	default:
		found := []note{}
		for _, n := range s.kept {
			if n.Key == r.URL.Query().Get("key") {
				found = append(found, n)
			}
		}
		_ = json.NewEncoder(w).Encode(found)
	}
}

func (s *notes) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.kept)
}

// notesFake is the service behind the kit's proxy.
type notesFake struct {
	*tooltest.Proxy
	svc *notes
}

func (f notesFake) Effects() int { return f.svc.count() }

func newNotes(t testing.TB) notesFake {
	svc := &notes{}
	srv := httptest.NewServer(svc)
	t.Cleanup(srv.Close)
	return notesFake{Proxy: tooltest.NewProxy(t, srv.URL), svc: svc}
}

// keepNote is an action on the notes service that looks before it writes,
// under its operationKey; lookless leaves the look out, as a careless
// author would, and claims says it found the note without looking.
type keepNote struct {
	base     string
	lookless bool
	// claims answers found without looking.
	claims bool
}

func (keepNote) Spec() api.ToolSpec {
	// The fake finishes a request at once: a resend may follow the
	// attempt's deadline closely.
	return api.ToolSpec{Name: "keep_note", Description: "Keep a note.", SideEffect: true, ProcessingLimit: 2 * time.Second,
		Parameters: json.RawMessage(`{"type":"object","required":["text"],"properties":{"text":{"type":"string"}}}`)}
}

func (keepNote) Preview(call tools.Call) (string, error) {
	var a struct{ Text string }
	err := call.DecodeArgs(&a)
	return fmt.Sprintf("Keep the note %q", a.Text), err
}

func (k keepNote) Touches(tools.Call) (string, error) { return k.base, nil }

func (k keepNote) Execute(ctx context.Context, call tools.Call) (api.ToolOutput, error) {
	if !k.lookless {
		if res, err := k.Reconcile(ctx, call); err != nil || res.Outcome == api.ReconcileFound {
			return res.Output, err
		}
	}
	var a struct{ Text string }
	if err := call.DecodeArgs(&a); err != nil {
		return api.ToolOutput{}, tools.Rejected("keep_note", err)
	}
	body, _ := json.Marshal(note{Key: call.OperationKey, Text: a.Text})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, k.base+"/notes", bytesReader(body))
	if err != nil {
		return api.ToolOutput{}, err
	}
	// A redirect is an answer, never followed: it would send the note again.
	resp, err := noRedirects.Do(req)
	if err != nil {
		return api.ToolOutput{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		return api.ToolOutput{}, fmt.Errorf("keep_note: the service answered %s", resp.Status)
	}
	return api.ToolOutput{Content: json.RawMessage(`{"kept":true}`), ExternalID: call.OperationKey}, nil
}

func (k keepNote) Reconcile(ctx context.Context, call tools.Call) (api.ToolReconciliation, error) {
	switch {
	case k.lookless:
		return api.ToolReconciliation{Outcome: api.ReconcileNotCreated}, nil
	case k.claims:
		return api.ToolReconciliation{Outcome: api.ReconcileFound, Output: api.ToolOutput{Content: json.RawMessage(`{"kept":true}`)}}, nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.base+"/notes?key="+url.QueryEscape(call.OperationKey), nil)
	if err != nil {
		return api.ToolReconciliation{}, err
	}
	resp, err := noRedirects.Do(req)
	if err != nil {
		return api.ToolReconciliation{}, err
	}
	defer resp.Body.Close()
	var found []note
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&found) != nil {
		return api.ToolReconciliation{Outcome: api.ReconcileCannotTell, Reason: "the service answered " + resp.Status}, nil
	}
	if len(found) == 0 {
		return api.ToolReconciliation{Outcome: api.ReconcileNotCreated}, nil
	}
	return api.ToolReconciliation{Outcome: api.ReconcileFound,
		Output: api.ToolOutput{Content: json.RawMessage(`{"kept":true}`), ExternalID: call.OperationKey, AlreadyExisted: true}}, nil
}

var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

var queue = api.Target{Kind: "notebook", Fields: map[string]string{"name": "ops"}}

func TestMain(m *testing.M) { tooltest.Main(m) }

func TestACarefulActionPassesEveryFault(t *testing.T) {
	results := tooltest.Run(t, tooltest.Kit{
		Target: queue,
		Args:   `{"text":"hello"}`,
		Edited: `{"text":"hello, edited"}`,
		New: func(t testing.TB) (tools.Action, tooltest.Fake) {
			fake := newNotes(t)
			return keepNote{base: fake.URL}, fake
		},
	})
	for _, r := range results {
		t.Logf("%-24s %s", r.Fault, r.Cell())
	}
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }

func TestTheKitCatchesAnActionThatResendsWithoutLooking(t *testing.T) {
	results := tooltest.Check(t, tooltest.Kit{
		Target: queue,
		Args:   `{"text":"hello"}`,
		New: func(t testing.TB) (tools.Action, tooltest.Fake) {
			fake := newNotes(t)
			return keepNote{base: fake.URL, lookless: true}, fake
		},
	})
	failed := map[string][]string{}
	for _, r := range results {
		if !r.Passed() {
			failed[r.Fault] = r.Problems
		}
	}
	for _, fault := range []string{"answer lost", "5xx after the effect", "timeout", "killed in flight",
		"lands late after a kill", "redirect"} {
		if len(failed[fault]) == 0 {
			t.Errorf("%s: the kit passed an action that sends again without looking", fault)
		}
	}
	t.Logf("caught: %v", failed)
}

func TestTheKitCatchesAnActionThatClaimsItsEffectWithoutLooking(t *testing.T) {
	results := tooltest.Check(t, tooltest.Kit{
		Target: queue,
		Args:   `{"text":"hello"}`,
		Faults: []string{"lands late after a kill"},
		New: func(t testing.TB) (tools.Action, tooltest.Fake) {
			fake := newNotes(t)
			return keepNote{base: fake.URL, claims: true}, fake
		},
	})
	if len(results) != 1 || !slices.Contains(results[0].Problems, "a look answered found while the fake held no effect") {
		t.Fatalf("the kit passed an action that answers found before its effect landed: %+v", results)
	}
}
