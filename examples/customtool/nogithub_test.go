package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/agentworker"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
)

var supportQueue = api.Target{Kind: TargetSupportQueue, Fields: map[string]string{"queue": "support"}}

func TestAWorkerWithoutGitHubServesTheTicketsAgentAndNoGitHubTool(t *testing.T) {
	reg, err := newRegistry(nil, "https://tickets.example")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range reg.Agents() {
		names = append(names, a.Name)
	}
	if strings.Join(names, ",") != AgentTickets {
		t.Fatalf("want the tickets agent alone, got %v", names)
	}
	github := agents.MustBuiltin(nil)
	for _, name := range []string{api.ToolGetPullRequest, api.ToolListPullRequestFiles, api.ToolCreateIssueComment,
		api.ToolCreatePullRequestReview, api.ToolAddLabels, api.ToolCreateIssue, ToolPostReleaseNote} {
		if _, builtin := github.Tool(name); !builtin && name != ToolPostReleaseNote {
			t.Fatalf("%s is no built-in tool", name)
		}
		if _, ok := reg.Tool(name); ok {
			t.Errorf("%s is served without GitHub", name)
		}
	}
	agent, _ := reg.Agent(AgentTickets)
	if agent.TargetKind != TargetSupportQueue {
		t.Fatalf("the tickets agent takes %q", agent.TargetKind)
	}
}

func TestAWorkerWithNeitherGitHubNorATicketServiceRefusesToStartSayingWhatToSet(t *testing.T) {
	env := map[string]string{"TEMPORAL_ADDRESS": "127.0.0.1:1"}
	opts := options
	opts.Getenv = func(k string) string { return env[k] }
	err := agentworker.Run(t.Context(), opts)
	if err == nil || !strings.Contains(err.Error(), "TICKETS_URL") || !strings.Contains(err.Error(), "GITHUB_TOKEN") {
		t.Fatalf("want a refusal naming TICKETS_URL and GITHUB_TOKEN, got %v", err)
	}
	if agentworker.ExitCode(err) != 2 {
		t.Fatalf("want exit code 2 (fix the variables), got %d", agentworker.ExitCode(err))
	}
}

func TestAnAgentNamingAGitHubToolOnAWorkerWithoutGitHubStopsStartUpNamingIt(t *testing.T) {
	ext := ticketsExtension("https://tickets.example")
	ext.Agents[0].Tools = append([]tools.AgentTool{{Name: api.ToolGetPullRequest}}, ext.Agents[0].Tools...)
	_, err := agents.WithoutGitHub(ext)
	if err == nil || !strings.Contains(err.Error(), "agent tickets uses the GitHub tool get_pull_request") ||
		!strings.Contains(err.Error(), "GITHUB_TOKEN") {
		t.Fatalf("want a refusal naming the agent, the tool and GITHUB_TOKEN, got %v", err)
	}
}

func TestTheStandInModelFilesTheTicketOfTheGoalWithoutReadingAnything(t *testing.T) {
	reg, err := newRegistry(nil, "https://tickets.example")
	if err != nil {
		t.Fatal(err)
	}
	agent, _ := reg.Agent(AgentTickets)
	conv := []api.Message{{Role: api.RoleSystem, Content: agent.SystemPrompt},
		{Role: api.RoleUser, Content: "File the ticket of support_queue queue=support.\nGoal: Flaky test"}}
	d, err := noteWriter{}.Next(context.Background(), conv, reg.Specs(agent))
	if err != nil || len(d.ToolCalls) != 1 || d.ToolCalls[0].Name != ToolCreateTicket {
		t.Fatalf("want one create_ticket call, got %+v, %v", d, err)
	}
	c, refusal := reg.Check(agent, d.ToolCalls[0], supportQueue)
	if refusal != "" || c.Preview != `Create ticket "Flaky test" with body "File the ticket of support_queue queue=support."` {
		t.Fatalf("preview %q, refusal %q", c.Preview, refusal)
	}
	var args map[string]string
	if err := json.Unmarshal(d.ToolCalls[0].Arguments, &args); err != nil || len(args) != 2 {
		t.Fatalf("arguments %s: %v", d.ToolCalls[0].Arguments, err)
	}
}
