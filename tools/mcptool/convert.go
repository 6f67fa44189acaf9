package mcptool

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
)

// Registered is one of a server's tools as agentrun serves it, with the gate
// to register it with (tools.Registry.Add).
type Registered struct {
	Tool tools.Tool
	Gate tools.Gate
}

// mcpToolName is the MCP specification's tool name; a name outside it could
// make an approval's preview say something else than the call.
var mcpToolName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// maxDescription bounds what a server puts into every prompt of the agent.
const maxDescription = 4096

// Tools is the server's tool list of Connect, as agentrun tools, sorted by
// name. The annotations decide each tool's treatment:
//   - readOnlyHint (and not destructiveHint): a read (tools.NeverAsk);
//   - idempotentHint: an action reconciled by repeating the same call
//     (tools.AgentDecides);
//   - anything else: an action that always asks, whose unknown outcome an
//     operator resolves (tools.AlwaysAsk).
//
// A tool that cannot be served (a name that cannot be made valid and unique,
// arguments that are not an object) is left out and named in the error; the
// others are returned all the same, for a worker that chooses to serve them.
func (c *Conn) Tools() ([]Registered, error) {
	var refused []error
	names := map[string][]string{} // agentrun name -> the MCP names that become it
	for _, t := range c.listed {
		if name, err := toolName(c.server.Name, t.Name); err != nil {
			refused = append(refused, err)
		} else {
			names[name] = append(names[name], t.Name)
		}
	}
	var out []Registered
	for i, t := range c.listed {
		if i > 0 && c.listed[i-1].Name == t.Name {
			continue // listed twice (the list is sorted): refused once
		}
		name, err := toolName(c.server.Name, t.Name)
		if err != nil {
			continue
		}
		if same := names[name]; len(same) > 1 {
			refused = append(refused, collision(c.server.Name, t.Name, name, same))
			continue
		}
		r, err := c.convert(t, name)
		if err != nil {
			refused = append(refused, fmt.Errorf("MCP tool %s.%s: %w", c.server.Name, t.Name, err))
			continue
		}
		out = append(out, r)
	}
	return out, errors.Join(refused...)
}

// collision refuses a tool whose name is not its own: which of the tools
// that share it is meant, only the server's owner can say.
func collision(server, mcpName, name string, same []string) error {
	var others []string
	for _, n := range same {
		if n != mcpName {
			others = append(others, n)
		}
	}
	if len(others) == 0 {
		return fmt.Errorf("MCP tool %s.%s: the server lists it %d times", server, mcpName, len(same))
	}
	return fmt.Errorf("MCP tool %s.%s: its name %s is also that of %s: rename one on the server",
		server, mcpName, name, strings.Join(others, ", "))
}

// toolName is <server>__<tool>, the tool's name lower-cased with every
// character outside [a-z0-9_] made "_".
func toolName(server, mcpName string) (string, error) {
	if !mcpToolName.MatchString(mcpName) {
		return "", fmt.Errorf("MCP tool %s.%q: not an MCP tool name (1 to 128 of A-Z a-z 0-9 _ - .)", server, mcpName)
	}
	part := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, strings.ToLower(mcpName))
	part = strings.Trim(part, "_")
	if part == "" {
		return "", fmt.Errorf("MCP tool %s.%s: its name has no letter or digit", server, mcpName)
	}
	name := server + "__" + part
	if len(name) > 64 {
		return "", fmt.Errorf("MCP tool %s.%s: its name %s is longer than 64 characters", server, mcpName, name)
	}
	return name, nil
}

func (c *Conn) convert(t *mcp.Tool, name string) (Registered, error) {
	schema, err := json.Marshal(t.InputSchema)
	if err != nil {
		return Registered{}, fmt.Errorf("input schema: %w", err)
	}
	description := t.Description
	if description == "" {
		description = t.Title
	}
	// The words come from the server's own name of the tool, without the
	// prefix: "tickets__create_ticket" reads "create a ticket".
	_, local, _ := strings.Cut(name, "__")
	b := base{conn: c, mcpName: t.Name, spec: api.ToolSpec{
		Name:        name,
		Description: api.TruncateUTF8(description, maxDescription),
		Parameters:  schema,
		Words:       api.DefaultWords(local),
	}}
	var r Registered
	switch a := t.Annotations; {
	// A tool that says it is read-only and destructive is at least not
	// read-only.
	case a != nil && a.ReadOnlyHint && (a.DestructiveHint == nil || !*a.DestructiveHint):
		r = Registered{Tool: readTool{b}, Gate: tools.NeverAsk}
	case a != nil && a.IdempotentHint:
		b.spec.SideEffect = true
		r = Registered{Tool: repeatAction{action{b}}, Gate: tools.AgentDecides}
	default:
		b.spec.SideEffect = true
		r = Registered{Tool: askAction{action{b}}, Gate: tools.AlwaysAsk}
	}
	// The registry's own checks (a valid name, an object schema that
	// resolves) decide here, so that a refused tool is named at connect and
	// the rule lives in one place.
	if err := tools.NewRegistry().Add(r.Tool, r.Gate); err != nil {
		return Registered{}, err
	}
	return r, nil
}
