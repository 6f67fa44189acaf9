package api

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAnActionIsInDoubtOnlyWhenItMayHaveBeenDoneUnseen(t *testing.T) {
	for name, tc := range map[string]struct {
		st   AgentStep
		want bool
	}{
		"unknown":                    {AgentStep{OperationKey: "r:5", Status: StepOutcomeUnknown}, true},
		"abandoned":                  {AgentStep{OperationKey: "r:5", Status: StepFailed, Error: AbandonedBy + "ops; the comment may have been posted"}, true},
		"failed otherwise":           {AgentStep{OperationKey: "r:5", Status: StepFailed, Error: "refused: 422"}, false},
		"abandoned words, not first": {AgentStep{OperationKey: "r:5", Status: StepFailed, Error: "not " + AbandonedBy + "ops"}, false},
		"succeeded":                  {AgentStep{OperationKey: "r:5", Status: StepSucceeded}, false},
		"running":                    {AgentStep{OperationKey: "r:5", Status: StepRunning}, false},
		"a read unknown":             {AgentStep{Status: StepOutcomeUnknown}, false},
		"a read abandoned":           {AgentStep{Status: StepFailed, Error: AbandonedBy + "ops"}, false},
		"rejected with the words":    {AgentStep{OperationKey: "r:5", Status: StepRejected, Error: AbandonedBy + "ops"}, false},
	} {
		require.Equal(t, tc.want, InDoubt(tc.st), name)
	}
}

func TestAnActionInDoubtSaysWhatMayHaveBeenDoneWhereAndUnderWhichKey(t *testing.T) {
	unknown := AgentStep{ID: "step-5", CallID: "call-5", ToolName: ToolCreateIssueComment, OperationKey: "run-1:5",
		Status: StepOutcomeUnknown, Error: "EOF", SafeInput: json.RawMessage(`{"target":"acme/widgets#1","preview":"x"}`)}
	abandoned := AgentStep{ID: "step-8", CallID: "call-8", ToolName: "put_record", OperationKey: "run-1:8",
		Status: StepFailed, Error: AbandonedBy + "ops", Words: &ToolWords{Noun: "record", Verb: "save", Past: "saved"}}
	read := AgentStep{ID: "step-2", ToolName: ToolGetPullRequest, Status: StepSucceeded}
	actions := []PendingAction{{StepID: "step-8", ArgsHash: "hash-8"}, {StepID: "step-3", ArgsHash: "hash-3"}}

	got := InDoubtActions("run-1", []AgentStep{read, unknown, abandoned}, actions)

	require.Equal(t, []InDoubtAction{
		{RunID: "run-1", StepID: "step-5", CallID: "call-5", Tool: ToolCreateIssueComment, OperationKey: "run-1:5", Target: "acme/widgets#1",
			Why: "no look could tell whether it was created"},
		{RunID: "run-1", StepID: "step-8", CallID: "call-8", Tool: "put_record", OperationKey: "run-1:8", Words: abandoned.Words,
			ArgsHash: "hash-8", Why: AbandonedBy + "ops"},
	}, got)
	require.Empty(t, got[0].ArgsHash, "it asked nobody")
	require.Empty(t, InDoubtActions("run-1", []AgentStep{read}, actions))

	answer := got[0].Answer()
	require.True(t, strings.HasPrefix(answer, InDoubtAnswer), answer)
	require.Equal(t, "outcome unknown: the issue comment may have been created on acme/widgets#1 (operationKey run-1:5, run run-1): "+
		"no look could tell whether it was created. Nobody saw whether it was; do not take it as not done.", answer)
	require.Equal(t, "run run-1's record under operationKey run-1:8 may have been saved on  (abandoned by ops)", got[1].Caution())
}

func followUpOf(earlier Run, who string) RunInput { return FollowUpInput(earlier, who, "shorter") }

func TestWhoMayFollowUpOnWhichRun(t *testing.T) {
	ended := Run{ID: "run-1", Repo: "acme/widgets", PullNumber: 1, UserID: "carol", Approvers: []string{"alice"}, Status: RunCompleted, ConversationID: "conv-1"}
	for name, tc := range map[string]struct {
		in          func(RunInput) RunInput
		earlier     func(Run) Run
		want        string
		needsWriter bool
	}{
		"the requester":           {},
		"an approver":             {in: func(in RunInput) RunInput { in.UserID = "alice"; return in }},
		"nobody":                  {in: func(in RunInput) RunInput { in.UserID = " "; return in }, want: "a follow-up must name who sends it (userId)"},
		"a stranger":              {in: func(in RunInput) RunInput { in.UserID = "mallory"; return in }, want: "mallory may not follow up on run run-1: only its requester or an approver may"},
		"still open":              {earlier: func(r Run) Run { r.Status = RunWaitingForUser; return r }, want: "run run-1 is still open (waiting_for_user): follow up once it has ended"},
		"failed":                  {earlier: func(r Run) Run { r.Status = RunFailed; return r }},
		"cancelled":               {earlier: func(r Run) Run { r.Status = RunCancelled; return r }},
		"another pull":            {in: func(in RunInput) RunInput { in.PullNumber = 2; return in }, want: "run run-1 was on another target (acme/widgets#1), and a follow-up stays on its run's"},
		"another repo":            {in: func(in RunInput) RunInput { in.Repo = "acme/gadgets"; return in }, want: "run run-1 was on another target (acme/widgets#1), and a follow-up stays on its run's"},
		"a bad target":            {in: func(in RunInput) RunInput { in.Repo = "acme"; return in }, want: `invalid repo "acme": want owner/name`},
		"a bad earlier":           {earlier: func(r Run) Run { r.Repo = "acme"; return r }, in: func(in RunInput) RunInput { in.Repo = "acme/widgets"; return in }, want: "run run-1 was on another target (/#0), and a follow-up stays on its run's"},
		"another agent":           {in: func(in RunInput) RunInput { in.Agent = "triage"; return in }, want: "run run-1 was run by agent pr-review, and a follow-up keeps its run's agent"},
		"the default agent named": {in: func(in RunInput) RunInput { in.Agent = DefaultAgent; return in }},
		"fewer approvers":         {in: func(in RunInput) RunInput { in.Approvers = nil; return in }, want: "a follow-up keeps run run-1's approvers (alice)"},
		"more approvers":          {in: func(in RunInput) RunInput { in.Approvers = []string{"alice", "mallory"}; return in }, want: "a follow-up keeps run run-1's approvers (alice)"},
		"other approvers":         {in: func(in RunInput) RunInput { in.Approvers = []string{"mallory"}; return in }, want: "a follow-up keeps run run-1's approvers (alice)"},
		"no approvers, a writer": {
			earlier:     func(r Run) Run { r.Approvers = nil; return r },
			in:          func(in RunInput) RunInput { in.UserID, in.Approvers = "bob", nil; return in },
			needsWriter: true,
		},
		"no approvers, the requester": {
			earlier: func(r Run) Run { r.Approvers = nil; return r },
			in:      func(in RunInput) RunInput { in.Approvers = nil; return in },
		},
	} {
		earlier := ended
		if tc.earlier != nil {
			earlier = tc.earlier(earlier)
		}
		in := followUpOf(earlier, "carol")
		if tc.in != nil {
			in = tc.in(in)
		}
		why, needsWriter := RefuseFollowUp(in, earlier)
		require.Equal(t, tc.want, why, name)
		require.Equal(t, tc.needsWriter, needsWriter, name)
	}
}

func TestAFollowUpKeepsItsRunsTargetAgentApproversAndConversation(t *testing.T) {
	earlier := Run{ID: "run-1", Repo: "acme/widgets", PullNumber: 1, Agent: "pr-review", UserID: "carol",
		Approvers: []string{"alice"}, Status: RunCompleted, ConversationID: "conv-1"}
	in := FollowUpInput(earlier, "alice", "say it shorter")
	require.Equal(t, RunInput{Repo: "acme/widgets", PullNumber: 1, Agent: "pr-review", Approvers: []string{"alice"},
		UserID: "alice", Goal: "say it shorter", FollowUp: "run-1", ConversationID: "conv-1"}, in)
	in.Approvers[0] = "mallory"
	require.Equal(t, "alice", earlier.Approvers[0], "the input's approvers are its own")
	require.True(t, sameLogins([]string{"a", "b"}, []string{"b", "a"}))
	require.False(t, sameLogins([]string{"a"}, []string{"a", "b"}))
	require.False(t, sameLogins([]string{"a", "b"}, []string{"a"}))
	require.True(t, sameLogins(nil, nil))
}
