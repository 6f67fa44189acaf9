package agentworker

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"reflect"
	"slices"

	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
	"github.com/agentrun/agentrun/tools/httptool"
	"github.com/agentrun/agentrun/tools/mcptool"
)

// maxToolsFileBytes bounds AGENT_TOOLS_FILE: a configuration, not a data set.
const maxToolsFileBytes = 1 << 20

// ToolsFile is AGENT_TOOLS_FILE (docs/tools.md, "The tools file"): the MCP
// servers and http_request tools the worker serves besides the built-in
// tools, which agents get them, and agents of its own. The registry built
// from it is part of the workflow's determinism: every worker of a task
// queue must load the same file.
type ToolsFile struct {
	MCPServers []MCPServerEntry `json:"mcpServers"`
	HTTPTools  []HTTPToolEntry  `json:"httpTools"`
	Agents     []AgentEntry     `json:"agents"`

	// path names the file in every error.
	path string
	// httpTools are HTTPTools built, in order.
	httpTools []tools.Action
}

// MCPServerEntry is one MCP server (mcptool.Server's JSON form) and the
// agents that get all its tools.
type MCPServerEntry struct {
	mcptool.Server
	Agents []AgentGrant `json:"agents"`
}

// HTTPToolEntry is one http_request tool: httptool.Config's fields and the
// agents that get it.
type HTTPToolEntry struct {
	Name             string            `json:"name"`
	Description      string            `json:"description"`
	BaseURL          string            `json:"baseUrl"`
	AllowedMethods   []string          `json:"allowedMethods"`
	AllowedPaths     []string          `json:"allowedPaths"`
	Headers          map[string]string `json:"headers"`
	MaxResponseBytes int               `json:"maxResponseBytes"`
	// Words and IDField are httptool.Config's: how people read the tool's
	// calls, and the answer's field that names what a call made.
	Words   api.ToolWords `json:"words"`
	IDField string        `json:"idField"`
	Agents  []AgentGrant  `json:"agents"`
}

// AgentGrant names an agent that gets a server's tools or an HTTP tool.
type AgentGrant struct {
	Name string `json:"name"`
	// Ask makes the agent's AgentDecides actions (an MCP server's idempotent
	// tools, an http_request tool) wait for approval; nil (unset) asks.
	Ask *bool `json:"ask"`
}

// AgentEntry is an agent of the file's own, over any registered tools.
type AgentEntry struct {
	Name          string   `json:"name"`
	SystemPrompt  string   `json:"systemPrompt"`
	Task          string   `json:"task"`
	Tools         []string `json:"tools"`
	MaxSteps      int      `json:"maxSteps"`
	BatchApproval bool     `json:"batchApproval"`
}

// ReadToolsFile reads and checks the tools file at path. It builds the
// http_request tools (which makes no request) but connects to no MCP server:
// ConnectTools does, once the whole configuration is known to be good.
func ReadToolsFile(path string) (*ToolsFile, error) {
	raw, err := readBounded(path)
	if err != nil {
		return nil, fmt.Errorf("tools file %s: %w", path, err)
	}
	f := &ToolsFile{path: path}
	if err := f.decode(raw); err != nil {
		return nil, err
	}
	if err := f.check(); err != nil {
		return nil, err
	}
	return f, nil
}

func readBounded(path string) ([]byte, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(io.LimitReader(file, maxToolsFileBytes+1)); err != nil {
		return nil, err
	}
	if buf.Len() > maxToolsFileBytes {
		return nil, fmt.Errorf("larger than %d bytes", maxToolsFileBytes)
	}
	return buf.Bytes(), nil
}

func (f *ToolsFile) decode(raw []byte) error {
	var generic any
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&generic); err != nil {
		return f.errorf("", "not JSON: %w", err)
	}
	if dec.More() {
		return f.errorf("", "more than one JSON value")
	}
	if _, ok := generic.(map[string]any); !ok {
		return f.errorf("", "want a JSON object")
	}
	if err := checkShape("", generic, reflect.TypeFor[ToolsFile]()); err != nil {
		return f.errorf("", "%w", err)
	}
	if err := json.Unmarshal(raw, f); err != nil {
		return f.errorf("", "%w", err)
	}
	return nil
}

// check refuses what can be known wrong before connecting to anything.
func (f *ToolsFile) check() error {
	builtin := agents.MustBuiltin(nil)
	known := func(agent string) bool {
		_, err := builtin.Agent(agent)
		return err == nil || slices.ContainsFunc(f.Agents, func(a AgentEntry) bool { return a.Name == agent })
	}
	for i, a := range f.Agents {
		at := fmt.Sprintf("agents[%d]", i)
		if _, err := builtin.Agent(a.Name); err == nil {
			return f.errorf(at+".name", "%q is a built-in agent; extend it through the agents of a server or tool", a.Name)
		}
		if slices.ContainsFunc(f.Agents[:i], func(b AgentEntry) bool { return b.Name == a.Name }) {
			return f.errorf(at+".name", "agent %q is defined twice", a.Name)
		}
		if a.SystemPrompt == "" || a.Task == "" {
			return f.errorf(at, "agent %q needs a systemPrompt and a task", a.Name)
		}
	}
	for i, s := range f.MCPServers {
		at := fmt.Sprintf("mcpServers[%d]", i)
		if slices.ContainsFunc(f.MCPServers[:i], func(o MCPServerEntry) bool { return o.Name == s.Name }) {
			return f.errorf(at+".name", "MCP server %q is listed twice", s.Name)
		}
		if err := checkGrants(at, s.Agents, known); err != nil {
			return f.errorf("", "%w", err)
		}
	}
	for i, h := range f.HTTPTools {
		at := fmt.Sprintf("httpTools[%d]", i)
		built, err := httptool.New(h.config())
		if err != nil {
			return f.errorf(at, "%w", err)
		}
		name := built.Spec().Name
		if slices.ContainsFunc(f.httpTools, func(o tools.Action) bool { return o.Spec().Name == name }) {
			return f.errorf(at+".name", "tool %q is listed twice", name)
		}
		if _, taken := builtin.Tool(name); taken {
			return f.errorf(at+".name", "%q is a built-in tool", name)
		}
		if err := checkGrants(at, h.Agents, known); err != nil {
			return f.errorf("", "%w", err)
		}
		f.httpTools = append(f.httpTools, built)
	}
	return nil
}

func checkGrants(at string, grants []AgentGrant, known func(string) bool) error {
	if len(grants) == 0 {
		return fmt.Errorf("%s.agents: name at least one agent, or its tools serve nobody", at)
	}
	for j, g := range grants {
		if !known(g.Name) {
			return fmt.Errorf("%s.agents[%d].name: %q is neither a built-in agent nor one of the file's agents", at, j, g.Name)
		}
		if slices.ContainsFunc(grants[:j], func(o AgentGrant) bool { return o.Name == g.Name }) {
			return fmt.Errorf("%s.agents[%d].name: agent %q is listed twice", at, j, g.Name)
		}
	}
	return nil
}

func (h HTTPToolEntry) config() httptool.Config {
	header := http.Header{}
	for k, v := range h.Headers {
		header.Set(k, v)
	}
	return httptool.Config{Name: h.Name, Description: h.Description, BaseURL: h.BaseURL,
		AllowedMethods: h.AllowedMethods, AllowedPaths: h.AllowedPaths, Header: header, MaxResponseBytes: h.MaxResponseBytes,
		Words: h.Words, IDField: h.IDField}
}

// ask is the grant's Ask: unset asks, the safe side.
func (g AgentGrant) ask() bool { return g.Ask == nil || *g.Ask }

// errorf names the file and the JSON path. Nothing of a value goes into a
// message unless the caller puts it there: headers hold secrets.
func (f *ToolsFile) errorf(jsonPath, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	if jsonPath == "" {
		return fmt.Errorf("tools file %s: %w", f.path, err)
	}
	return fmt.Errorf("tools file %s: %s: %w", f.path, jsonPath, err)
}
