// Package scripted is a model that follows a script instead of thinking: "call
// send_message with the goal as its text, then report". It lets the author
// of a tool and an agent try them end to end, approval and all, with no
// model provider (docs/tools.md). It reads only what a run's conversation
// guarantees: the user message (api.ReadUserMessage) and the tools' results.
package scripted

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/model"
)

// Goal and Task, in a string argument of a Call, stand for the run's goal
// and the first line of its user message (its task on its target).
const (
	Goal = "{goal}"
	Task = "{task}"
)

// Name is the model's name in the run's steps.
const Name = "scripted"

// Script is what the model does in a run whose agent is offered every tool
// its calls name: each call in order, the next once the last one's result
// came, then a final answer that reports the results.
type Script struct {
	Calls []Call
}

// Call is one tool call of a script. A string value in Args has Goal and
// Task replaced; any other value is sent as it is.
type Call struct {
	Tool string
	Args map[string]any
}

// Model follows the first of its Scripts whose tools the run's agent is
// offered, from the run's last user message on (a follow-up starts the
// script again, with its own goal). A conversation no script fits goes to
// Otherwise, the provider's model; with Otherwise nil it ends with a final
// answer saying so.
type Model struct {
	Scripts   []Script
	Otherwise model.Model
}

// Then is the one-call script: call tool with the run's goal as its argument
// arg, then report.
func Then(tool, arg string) Script {
	return Script{Calls: []Call{{Tool: tool, Args: map[string]any{arg: Goal}}}}
}

// Next implements model.Model.
func (m Model) Next(ctx context.Context, conv []api.Message, offered []api.ToolSpec) (api.ModelDecision, error) {
	script, ok := m.scriptFor(offered)
	if !ok {
		if m.Otherwise != nil {
			return m.Otherwise.Next(ctx, conv, offered)
		}
		return api.ModelDecision{Final: "No script of this worker fits the tools of this run's agent.", Model: Name, Local: true}, nil
	}
	last := -1
	for i := len(conv) - 1; i >= 0; i-- {
		if conv[i].Role == api.RoleUser {
			last = i
			break
		}
	}
	if last < 0 {
		return api.ModelDecision{}, errors.New("scripted model: the conversation has no user message")
	}
	task, goal := api.ReadUserMessage(conv[last].Content)
	var results []api.Message
	for _, msg := range conv[last+1:] {
		if msg.Role == api.RoleTool {
			results = append(results, msg)
		}
	}
	if len(results) >= len(script.Calls) {
		return api.ModelDecision{Final: report(results), Model: Name, Local: true}, nil
	}
	next := script.Calls[len(results)]
	args, err := expand(next.Args, task, goal)
	if err != nil {
		return api.ModelDecision{}, fmt.Errorf("scripted model: %s: %w", next.Tool, err)
	}
	id := fmt.Sprintf("script-%d-%d", last, len(results)+1)
	return api.ModelDecision{Model: Name, Local: true, ToolCalls: []api.ToolCall{{ID: id, Name: next.Tool, Arguments: args}}}, nil
}

// scriptFor is the first script whose every tool is offered.
func (m Model) scriptFor(offered []api.ToolSpec) (Script, bool) {
	for _, s := range m.Scripts {
		fits := len(s.Calls) > 0
		for _, c := range s.Calls {
			fits = fits && slices.ContainsFunc(offered, func(t api.ToolSpec) bool { return t.Name == c.Tool })
		}
		if fits {
			return s, true
		}
	}
	return Script{}, false
}

// expand is args as JSON with Goal and Task replaced in its strings.
func expand(args map[string]any, task, goal string) (json.RawMessage, error) {
	out := make(map[string]any, len(args))
	replace := strings.NewReplacer(Goal, goal, Task, task)
	for k, v := range args {
		if s, ok := v.(string); ok {
			v = replace.Replace(s)
		}
		out[k] = v
	}
	return json.Marshal(out)
}

// report is the final answer: each result the run gave the script's calls.
func report(results []api.Message) string {
	lines := []string{"Done."}
	for _, r := range results {
		lines = append(lines, fmt.Sprintf("%s: %s", r.Name, r.Content))
	}
	return strings.Join(lines, "\n")
}
