package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
)

// ownClaim is a tool's own text speaking of who approves its calls: only the
// registry's note (tools.ApprovalNote) may, so that it never contradicts the gate.
var ownClaim = regexp.MustCompile(`(?i)\bperson\b|\bapprov|\bwithout asking\b`)

func TestTheExamplesToolsLeaveApprovalToTheRegistrysNote(t *testing.T) {
	reg, err := newRegistry(untouchable{t}, "https://tickets.example")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{ToolPostReleaseNote, ToolCreateTicket} {
		own, ok := reg.Tool(name)
		if !ok {
			t.Fatalf("%s is not registered", name)
		}
		if ownClaim.MatchString(own.Spec().Description) {
			t.Errorf("%s's own description speaks of approval: %q", name, own.Spec().Description)
		}
	}
	for agentName, tool := range map[string]string{AgentReleaseNotes: ToolPostReleaseNote, AgentTickets: ToolCreateTicket} {
		agent, err := reg.Agent(agentName)
		if err != nil {
			t.Fatal(err)
		}
		var offered api.ToolSpec
		for _, s := range reg.Specs(agent) {
			if s.Name == tool {
				offered = s
			}
		}
		note := tools.ApprovalNote(tools.ApprovalAlways, "", nil)
		if !strings.HasSuffix(offered.Description, note) {
			t.Errorf("%s offers %s as %q, without the note %q", agentName, tool, offered.Description, note)
		}
	}
	agent, _ := reg.Agent(AgentTickets)
	c, refusal := reg.Check(agent, api.ToolCall{ID: "c", Name: ToolCreateTicket,
		Arguments: json.RawMessage(`{"title":"Flaky test","body":"TestCache fails."}`)}, supportQueue)
	if refusal != "" || !c.Ask || c.Preview != `Create ticket "Flaky test" with body "TestCache fails."` {
		t.Fatalf("the note says a person approves: ask %v, preview %q, refusal %q", c.Ask, c.Preview, refusal)
	}
}

func TestWithoutATicketServiceTheWorkerServesNoTicketTool(t *testing.T) {
	reg, err := newRegistry(untouchable{t}, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := reg.Tool(ToolCreateTicket); ok {
		t.Fatal("create_ticket is served with no TICKETS_URL")
	}
	if _, err := reg.Agent(AgentTickets); err == nil {
		t.Fatal("the tickets agent is served with no TICKETS_URL")
	}
}
