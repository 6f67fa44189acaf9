package tooltest_test

import (
	"encoding/json"
	"flag"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/api"
	ghapi "github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/internal/testkit/standalone"
	"github.com/agentrun/agentrun/tools"
	"github.com/agentrun/agentrun/tools/ghtools"
	"github.com/agentrun/agentrun/tools/httptool"
	"github.com/agentrun/agentrun/tools/mcptool"
	"github.com/agentrun/agentrun/tooltest"
)

// builtin is one built-in action under the kit: its row of the table in
// docs/tools.md.
type builtin struct {
	row string
	kit tooltest.Kit
}

var pull = api.Target{Owner: "acme", Repo: "widgets", PullNumber: 1}

func builtins() []builtin {
	return []builtin{
		{row: "`create_issue_comment` (GitHub sandbox)", kit: githubKit(ghsandbox.OpCreateComment,
			`{"body":"Looks good."}`, `{"body":"Looks good, edited."}`,
			func(acc ghtools.Access) tools.Action { return ghtools.NewCreateIssueComment(acc) })},
		{row: "`create_pull_request_review` (GitHub sandbox)", kit: githubKit(ghsandbox.OpCreateReview,
			`{"body":"Two nits.","event":"COMMENT"}`, `{"body":"Two nits, edited.","event":"COMMENT"}`, ghtools.NewCreateReview)},
		{row: "`add_labels` (GitHub sandbox)", kit: githubKit(ghsandbox.OpAddLabels,
			`{"labels":["bug"]}`, `{"labels":["docs"]}`, func(acc ghtools.Access) tools.Action { return ghtools.NewAddLabels(acc) })},
		{row: "`create_issue` (GitHub sandbox)", kit: githubKit(ghsandbox.OpCreateIssue,
			`{"title":"Flaky test","body":"It fails one run in ten."}`, `{"title":"Flaky test, edited","body":"It fails one run in ten."}`,
			ghtools.NewCreateIssue)},
		{row: "`http_request` (an API that honours Idempotency-Key)", kit: httpRequestKit()},
		{row: "`save_recommendation` (the merchant sandbox)", kit: saveRecommendationKit()},
		{row: "MCP `put`, idempotent (streamable HTTP)", kit: mcpKit("put", `{"key":"release","value":"v1"}`, `{"key":"release","value":"v2"}`,
			func(st *testkit.MCPStore) int { return st.Applied("release") })},
		{row: "MCP `append`, neither read-only nor idempotent", kit: mcpKit("append", `{"text":"shipped"}`, `{"text":"shipped v2"}`,
			(*testkit.MCPStore).Appended)},
	}
}

// githubFake is a sandbox behind the kit's proxy; an effect is a write of
// op that the sandbox performed.
type githubFake struct {
	*tooltest.Proxy
	sb *ghsandbox.Server
	op string
}

func (f githubFake) Effects() int {
	n := 0
	for _, r := range f.sb.Requests() {
		if r.Op == f.op && r.Status/100 == 2 {
			n++
		}
	}
	return n
}

func githubKit(op, args, edited string, action func(ghtools.Access) tools.Action) tooltest.Kit {
	return tooltest.Kit{Target: pull, Args: args, Edited: edited,
		New: func(t testing.TB) (tools.Action, tooltest.Fake) {
			sb := ghsandbox.New(ghsandbox.DefaultFixture())
			srv := httptest.NewServer(sb)
			t.Cleanup(srv.Close)
			proxy := tooltest.NewProxy(t, srv.URL)
			gh, err := ghapi.NewClient(proxy.URL, "sandbox-token")
			if err != nil {
				t.Fatalf("GitHub client: %v", err)
			}
			return action(ghapi.NewAccess(gh, nil, sb.BotLogin())), githubFake{Proxy: proxy, sb: sb, op: op}
		}}
}

// saveRecommendationKit is the recommend agent's save, over the merchant
// service the sandbox serves.
func saveRecommendationKit() tooltest.Kit {
	target := api.Target{Kind: agents.TargetRecommendation, Fields: map[string]string{"city": "Pune", "party_size": "2", "budget": "1500"}}
	return merchantKit(target, func(t testing.TB, url string) tools.Action {
		ext, err := agents.Recommender(url, nil)
		if err != nil {
			t.Fatalf("recommend agent: %v", err)
		}
		for _, x := range ext.Tools {
			if a, ok := x.Tool.(tools.Action); ok && x.Tool.Spec().Name == agents.SaveRecommendation {
				return a
			}
		}
		t.Fatalf("the recommend agent has no %s", agents.SaveRecommendation)
		return nil
	})
}

// httpRequestKit is http_request over an API that honours Idempotency-Key
// as Stripe does (the merchant service's POST /recommendations).
func httpRequestKit() tooltest.Kit {
	return merchantKit(api.Target{Kind: "order_desk", Fields: map[string]string{"desk": "eu"}}, func(t testing.TB, url string) tools.Action {
		action, err := httptool.New(httptool.Config{BaseURL: url, AllowedPaths: []string{"/recommendations"}, IDField: "id"})
		if err != nil {
			t.Fatalf("http_request: %v", err)
		}
		return action
	})
}

// merchantKit is an action over the merchant service the sandbox serves,
// behind the kit's proxy; an effect is a saved recommendation.
func merchantKit(target api.Target, action func(t testing.TB, url string) tools.Action) tooltest.Kit {
	return tooltest.Kit{Target: target,
		Args:   `{"method":"POST","path":"/recommendations","body":{"picks":["m-1","m-2","m-3"]}}`,
		Edited: `{"method":"POST","path":"/recommendations","body":{"picks":["m-2"]}}`,
		New: func(t testing.TB) (tools.Action, tooltest.Fake) {
			sb := ghsandbox.New(ghsandbox.DefaultFixture())
			srv := httptest.NewServer(sb)
			t.Cleanup(srv.Close)
			fake := &keyedFake{count: func() int { return len(sb.Merchants().Recommendations()) }}
			fake.Proxy = fake.proxy(t, srv.URL)
			return action(t, fake.URL), fake
		}}
}

// mcpKit is one tool of the test MCP server, served over streamable HTTP
// behind the kit's proxy: the call's first tools/call creates, a repeat of
// it is the look.
func mcpKit(tool, args, edited string, effects func(*testkit.MCPStore) int) tooltest.Kit {
	return tooltest.Kit{Target: api.Target{Kind: "kv_store", Fields: map[string]string{"store": "main"}}, Args: args, Edited: edited,
		New: func(t testing.TB) (tools.Action, tooltest.Fake) {
			store := testkit.NewMCPStore()
			server := testkit.NewMCPServer(testkit.MCPServerOptions{Store: store})
			srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
			t.Cleanup(srv.Close)
			fake := &keyedFake{count: func() int { return effects(store) }}
			fake.Proxy = tooltest.NewProxy(t, srv.URL)
			calls := func(_ *http.Request, body []byte) bool {
				var rpc struct {
					Method string `json:"method"`
					Params struct {
						Name string `json:"name"`
					} `json:"params"`
				}
				return json.Unmarshal(body, &rpc) == nil && rpc.Method == "tools/call" && rpc.Params.Name == tool
			}
			fake.Proxy.IsLook = calls
			fake.Proxy.IsCreate = func(r *http.Request, body []byte) bool { return calls(r, body) && fake.first("") }
			conn, err := mcptool.Connect(t.Context(), mcptool.Server{Name: "kv", URL: fake.URL})
			if err != nil {
				t.Fatalf("connect to the MCP server: %v", err)
			}
			t.Cleanup(func() { _ = conn.Close() })
			listed, err := conn.Tools()
			if err != nil {
				t.Fatalf("list the MCP tools: %v", err)
			}
			for _, l := range listed {
				if a, ok := l.Tool.(tools.Action); ok && l.Tool.Spec().Name == "kv__"+tool {
					return a, fake
				}
			}
			t.Fatalf("the MCP server lists no action %s", tool)
			return nil, nil
		}}
}

// keyedFake is a service that honours Idempotency-Key behind the kit's
// proxy: the first request of a key creates, a repeat of it is the look.
type keyedFake struct {
	*tooltest.Proxy
	count func() int
	mu    sync.Mutex
	keys  map[string]bool
}

func (f *keyedFake) Effects() int { return f.count() }

func (f *keyedFake) proxy(t testing.TB, target string) *tooltest.Proxy {
	p := tooltest.NewProxy(t, target)
	p.IsCreate = func(r *http.Request, _ []byte) bool {
		return r.Method == http.MethodPost && f.first(r.Header.Get("Idempotency-Key"))
	}
	return p
}

// first says this is the first create under key.
func (f *keyedFake) first(key string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.keys == nil {
		f.keys = map[string]bool{}
	}
	first := !f.keys[key]
	f.keys[key] = true
	return first
}

var update = flag.Bool("update", false, "rewrite docs/tools.md's conformance table of the built-in actions")

// TestEveryBuiltInActionPassesTheKit runs the kit on every built-in action
// and holds docs/tools.md's table to what it saw.
func TestEveryBuiltInActionPassesTheKit(t *testing.T) {
	all := builtins()
	rows := make([]tooltest.Row, len(all))
	// t.Run returns once its parallel subtests have all ended.
	t.Run("actions", func(t *testing.T) {
		for i, b := range all {
			t.Run(b.row, func(t *testing.T) {
				t.Parallel()
				rows[i] = tooltest.Row{Action: b.row, Results: tooltest.Run(t, b.kit)}
			})
		}
	})
	if t.Failed() {
		return
	}
	for _, r := range rows {
		if r.Action == "" {
			t.Log("-run left out an action: docs/tools.md's table is not checked")
			return
		}
	}
	root, err := standalone.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	tooltest.KeepTable(t, filepath.Join(root, "docs", "tools.md"), "builtin", tooltest.Table(rows),
		"go test ./tooltest -run TestEveryBuiltInActionPassesTheKit -update", *update)
}
