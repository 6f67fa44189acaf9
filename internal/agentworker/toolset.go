package agentworker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/internal/startup"
	"github.com/agentrun/agentrun/tools"
	"github.com/agentrun/agentrun/tools/ghtools"
	"github.com/agentrun/agentrun/tools/mcptool"
)

// mcpConnectTimeout bounds one MCP server's start (or reach) and tool list.
const mcpConnectTimeout = 30 * time.Second

// Toolset is the registry a worker serves and the MCP connections its tools
// call through, which Close ends (a stdio server's process with them).
type Toolset struct {
	Registry *tools.Registry
	// Extra names the tools the file added, in registration order.
	Extra []string
	conns []*mcptool.Conn
}

// Close closes every MCP connection.
func (s *Toolset) Close() error {
	var errs []error
	for _, c := range s.conns {
		errs = append(errs, c.Close())
	}
	s.conns = nil
	return errors.Join(errs...)
}

// LoadTools gives acts the registry of cfg's tools file (AGENT_TOOLS_FILE),
// of the program's own extensions (own: the public agentworker's Options)
// and of the recommend agent (AGENT_MERCHANT_URL): the built-in tools and
// agents over acts' GitHub access, extended with them in that order. With
// none it leaves acts.Tools to registration's default and returns an empty
// Toolset. The caller closes the Toolset once the worker has stopped.
func LoadTools(ctx context.Context, cfg Config, acts *activities.Activities, mcpStderr io.Writer, own ...agents.Extension) (*Toolset, error) {
	if !cfg.HasGitHub() {
		return loadWithoutGitHub(ctx, cfg, acts, mcpStderr, own)
	}
	if cfg.Tools == nil && cfg.MerchantURL == "" && len(own) == 0 {
		return &Toolset{}, nil
	}
	merchant, err := recommender(cfg)
	if err != nil {
		return nil, err
	}
	also := append(slices.Clip(own), merchant...)
	acc := acts.GitHub
	if cfg.Tools == nil {
		reg, err := agents.BuiltinWith(acc, also...)
		if err != nil {
			return nil, err
		}
		acts.Tools = reg
		return &Toolset{Registry: reg}, nil
	}
	for i := range cfg.Tools.MCPServers {
		cfg.Tools.MCPServers[i].BaseEnv = cfg.ChildEnv
	}
	set, err := ConnectTools(ctx, cfg.Tools, acc, mcpStderr, also...)
	if err != nil {
		return nil, err
	}
	acts.Tools = set.Registry
	return set, nil
}

// recommender is the recommend agent's extension when AGENT_MERCHANT_URL
// names the merchant service, else none.
func recommender(cfg Config) ([]agents.Extension, error) {
	if cfg.MerchantURL == "" {
		return nil, nil
	}
	ext, err := agents.Recommender(cfg.MerchantURL, nil)
	if err != nil {
		return nil, fmt.Errorf("AGENT_MERCHANT_URL: %w", err)
	}
	return []agents.Extension{ext}, nil
}

// ErrNoGitHub is the refusal of a worker with no GitHub variable and no
// agent of its own: the built-in agents all use GitHub tools.
var ErrNoGitHub = errors.New("no GitHub variable is set (GITHUB_TOKEN, GITHUB_API_URL, GITHUB_BOT_LOGIN), and the built-in agents " +
	"pr-review and triage use GitHub tools: set GITHUB_TOKEN, or serve agents that use none with AGENT_TOOLS_FILE or AGENT_MERCHANT_URL")

// loadWithoutGitHub is LoadTools for a worker with no GitHub: the tools
// file's, the program's own and the recommender's tools and agents alone
// (agents.WithoutGitHub).
// An agent that names a GitHub tool stops start-up, naming it.
func loadWithoutGitHub(ctx context.Context, cfg Config, acts *activities.Activities, mcpStderr io.Writer, own []agents.Extension) (*Toolset, error) {
	if cfg.Tools == nil && cfg.MerchantURL == "" && len(own) == 0 {
		return nil, &startup.ConfigError{Err: ErrNoGitHub}
	}
	merchant, err := recommender(cfg)
	if err != nil {
		return nil, err
	}
	exts := append(slices.Clip(own), merchant...)
	set := &Toolset{}
	if f := cfg.Tools; f != nil {
		for i := range f.MCPServers {
			f.MCPServers[i].BaseEnv = cfg.ChildEnv
		}
		ext, err := f.connect(ctx, set, mcpStderr)
		if err != nil {
			_ = set.Close()
			return nil, err
		}
		exts = append([]agents.Extension{ext}, exts...)
	}
	if set.Registry, err = agents.WithoutGitHub(exts...); err != nil {
		_ = set.Close()
		if cfg.Tools != nil {
			err = cfg.Tools.errorf("", "%w", err)
		}
		if errors.Is(err, agents.ErrNeedsGitHub) {
			return nil, &startup.ConfigError{Err: err}
		}
		return nil, err
	}
	acts.Tools = set.Registry
	return set, nil
}

// ConnectTools connects to each of f's MCP servers and builds the registry
// over acc, with the extensions also (the recommend agent's) after the
// file's, all or nothing: a server that cannot be reached, or that lists a
// tool agentrun cannot serve, fails it, with every connection made so far
// closed. mcpStderr receives the stdio servers' standard error (nil
// discards it).
func ConnectTools(ctx context.Context, f *ToolsFile, acc ghtools.Access, mcpStderr io.Writer, also ...agents.Extension) (*Toolset, error) {
	set := &Toolset{}
	ext, err := f.connect(ctx, set, mcpStderr)
	if err == nil {
		set.Registry, err = agents.BuiltinWith(acc, append([]agents.Extension{ext}, also...)...)
		if err != nil {
			err = f.errorf("", "%w", err)
		}
	}
	if err != nil {
		_ = set.Close()
		return nil, err
	}
	return set, nil
}

// connect makes the extension: the HTTP tools, then each server's tools,
// then the file's agents, each name checked with its JSON path.
func (f *ToolsFile) connect(ctx context.Context, set *Toolset, mcpStderr io.Writer) (agents.Extension, error) {
	var ext agents.Extension
	builtin := agents.MustBuiltin(nil)
	taken := func(name string) bool {
		_, ok := builtin.Tool(name)
		return ok || slices.Contains(set.Extra, name)
	}
	add := func(t tools.Tool, gate tools.Gate, grants []AgentGrant) {
		name := t.Spec().Name
		ext.Tools = append(ext.Tools, agents.ExtraTool{Tool: t, Gate: gate})
		set.Extra = append(set.Extra, name)
		for _, g := range grants {
			ext.Grants = append(ext.Grants, agents.Grant{Agent: g.Name, Tool: tools.AgentTool{Name: name, Ask: g.ask()}})
		}
	}
	for i, h := range f.HTTPTools {
		// AgentDecides: each agent's grant says whether it asks (unset: it does).
		add(f.httpTools[i], tools.AgentDecides, h.Agents)
	}
	for i, s := range f.MCPServers {
		at := fmt.Sprintf("mcpServers[%d]", i)
		served, err := connectServer(ctx, s.Server, mcpStderr)
		if served.conn != nil {
			set.conns = append(set.conns, served.conn)
		}
		if err != nil {
			return ext, f.errorf(at, "%w", err)
		}
		for _, r := range served.tools {
			if name := r.Tool.Spec().Name; taken(name) {
				return ext, f.errorf(at, "MCP tool %q: the name is taken by another tool", name)
			}
			add(r.Tool, r.Gate, s.Agents)
		}
	}
	for i, a := range f.Agents {
		agent := tools.Agent{Name: a.Name, SystemPrompt: a.SystemPrompt, Task: a.Task, MaxSteps: a.MaxSteps, BatchApproval: a.BatchApproval}
		for j, name := range a.Tools {
			if !taken(name) {
				return ext, f.errorf(fmt.Sprintf("agents[%d].tools[%d]", i, j), "no tool is named %q", name)
			}
			// Ask: an agent the file defines asks for its AgentDecides
			// actions; a grant with ask false is how one is let through.
			agent.Tools = append(agent.Tools, tools.AgentTool{Name: name, Ask: true})
		}
		ext.Agents = append(ext.Agents, agent)
	}
	return ext, nil
}

type servedMCP struct {
	conn  *mcptool.Conn
	tools []mcptool.Registered
}

func connectServer(ctx context.Context, s mcptool.Server, stderr io.Writer) (servedMCP, error) {
	ctx, cancel := context.WithTimeout(ctx, mcpConnectTimeout)
	defer cancel()
	s.Stderr = stderr
	conn, err := mcptool.Connect(ctx, s)
	if err != nil {
		return servedMCP{}, err
	}
	listed, err := conn.Tools()
	if err != nil {
		// All or nothing: serving the rest would give the agents another
		// tool set than the operator listed.
		return servedMCP{conn: conn}, fmt.Errorf("a tool cannot be served: %w", err)
	}
	if len(listed) == 0 {
		return servedMCP{conn: conn}, fmt.Errorf("MCP server %s lists no tools", s.Name)
	}
	return servedMCP{conn: conn, tools: listed}, nil
}
