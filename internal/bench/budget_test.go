package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/proto"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/testkit"
)

// budgetTurns are the conversation lengths the README reports.
var budgetTurns = []int{5, 20, 50}

// conversationMode is how a run's model calls carry the conversation.
type conversationMode struct {
	name        string
	inlineBytes int // RunInput.InlineConversationBytes
}

var (
	inlineMode     = conversationMode{"inline (baseline)", -1}
	defaultMode    = conversationMode{fmt.Sprintf("refs past %d bytes (default)", api.DefaultInlineConversationBytes), 0}
	alwaysRefsMode = conversationMode{"refs always", 1}
)

// turnsPrefix tells the scripted model, through the run's goal, how many
// times to read the pull request before it answers.
const turnsPrefix = "turns="

// scriptedModel asks for get_pull_request until it has done so as often as
// the goal says, then answers. It fails when the conversation it is given
// is not the whole conversation so far, so a reference that resolves to
// the wrong messages cannot go unnoticed.
type scriptedModel struct{}

func (scriptedModel) Next(_ context.Context, conversation []api.Message, _ []api.ToolSpec) (api.ModelDecision, error) {
	turns, asked, err := turnsAsked(conversation)
	if err != nil {
		return api.ModelDecision{}, err
	}
	usage := api.Usage{PromptTokens: int64(len(conversation)), CompletionTokens: 1}
	if asked >= turns {
		return api.ModelDecision{Final: fmt.Sprintf("read the pull request %d times", asked), Usage: usage}, nil
	}
	call := api.ToolCall{ID: fmt.Sprintf("call_%d", asked), Name: api.ToolGetPullRequest, Arguments: json.RawMessage(`{}`)}
	return api.ModelDecision{ToolCalls: []api.ToolCall{call}, Usage: usage}, nil
}

// turnsAsked reads the goal's number of turns and how many the
// conversation has had; it fails when the conversation is not the whole
// conversation so far (the goal, then a tool call and its result per turn).
func turnsAsked(conversation []api.Message) (turns, asked int, err error) {
	if len(conversation) < 2 {
		return 0, 0, fmt.Errorf("conversation of %d messages has no goal", len(conversation))
	}
	_, goal, _ := strings.Cut(conversation[1].Content, turnsPrefix)
	turns, err = strconv.Atoi(strings.TrimSpace(goal))
	if err != nil {
		return 0, 0, fmt.Errorf("goal %q: %w", conversation[1].Content, err)
	}
	asked = (len(conversation) - 2) / 2
	if want := 2 + 2*asked; len(conversation) != want || (asked > 0 && conversation[len(conversation)-1].Role != api.RoleTool) {
		return 0, 0, fmt.Errorf("got %d messages, want %d ending in a tool result", len(conversation), want)
	}
	return turns, asked, nil
}

// budget is what one run spent on history.
type budget struct {
	modelCalls   int
	historyBytes int
	// lastTurnBytes is the history of the last turn: from the last
	// ModelNext that asked for a tool to the one that answered.
	lastTurnBytes int
	// lastInputBytes is the size of the last ModelNext input.
	lastInputBytes int
}

func (b budget) perModelCall() int { return b.historyBytes / b.modelCalls }

// TestHistoryBytesPerModelCall measures, on a real dev server, the history a
// run spends per model call at 5, 20 and 50 turns, with the conversation
// inline on every call (the baseline) and with conversation references.
//
//	go test ./internal/bench -run TestHistoryBytesPerModelCall -v -count=1
func TestHistoryBytesPerModelCall(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a dev server")
	}
	c := startBudgetWorker(t)
	modes := []conversationMode{inlineMode, defaultMode, alwaysRefsMode}
	got := map[conversationMode]map[int]budget{}
	for _, mode := range modes {
		got[mode] = map[int]budget{}
		for _, turns := range budgetTurns {
			got[mode][turns] = runBudget(t, c, mode, turns)
		}
	}
	t.Log("\n" + budgetTable(modes, got))

	// A size bound, not a time: with references, a turn costs the same
	// whatever the conversation's length.
	for _, turns := range budgetTurns {
		require.LessOrEqual(t, got[alwaysRefsMode][turns].lastTurnBytes, got[alwaysRefsMode][budgetTurns[0]].lastTurnBytes+256,
			"refs always: the last turn of %d turns costs more than the last of %d", turns, budgetTurns[0])
		require.LessOrEqual(t, got[defaultMode][turns].lastTurnBytes, api.DefaultInlineConversationBytes+8<<10,
			"default: the last turn of %d turns is past the inline limit plus a turn's own events", turns)
	}
	last := budgetTurns[len(budgetTurns)-1]
	require.Greater(t, got[inlineMode][last].lastTurnBytes, 2*got[alwaysRefsMode][last].lastTurnBytes,
		"the inline baseline must grow with the conversation, or this measures nothing")
}

// streamingScripted is scriptedModel as a streaming provider (model/openai)
// is: its calls stay activities the server schedules, whose inputs the
// history records, which is what the references save. (An offline model,
// which answers at once, makes its later calls local, whose inputs the
// history never holds.)
type streamingScripted struct{ scriptedModel }

func (s streamingScripted) Stream(ctx context.Context, conversation []api.Message, tools []api.ToolSpec, _ func(string)) (api.ModelDecision, error) {
	return s.Next(ctx, conversation, tools)
}

func startBudgetWorker(t *testing.T) client.Client {
	return testkit.StartStack(t, testkit.StackOptions{TaskQueue: budgetQueue, Model: streamingScripted{}}).Client()
}

const budgetQueue = "history-budget"

func runBudget(t *testing.T, c client.Client, mode conversationMode, turns int) budget {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	id := fmt.Sprintf("budget-%d-%d", mode.inlineBytes, turns)
	in := api.RunInput{
		Repo: "acme/widgets", PullNumber: 1, UserID: "bench", Goal: turnsPrefix + strconv.Itoa(turns),
		MaxSteps: turns + 1, InlineConversationBytes: mode.inlineBytes, ToolTimeout: 10 * time.Second,
	}
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: budgetQueue}, api.WorkflowName, in)
	require.NoError(t, err)
	var res api.RunResult
	require.NoError(t, run.Get(ctx, &res), "run %s", id)
	require.Equal(t, fmt.Sprintf("read the pull request %d times", turns), res.Answer)
	return measureHistory(t, c, id)
}

// measureHistory sums the events' protobuf sizes, as the server counts a
// history's bytes, and splits them at each ModelNext scheduling.
func measureHistory(t *testing.T, c client.Client, id string) budget {
	iter := c.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var b budget
	var turnStarts []int // history bytes before each ModelNext scheduling
	for iter.HasNext() {
		ev, err := iter.Next()
		require.NoError(t, err)
		if input, ok := modelNextInput(ev); ok {
			turnStarts = append(turnStarts, b.historyBytes)
			b.lastInputBytes = input
		}
		b.historyBytes += proto.Size(ev)
	}
	b.modelCalls = len(turnStarts)
	require.GreaterOrEqual(t, b.modelCalls, 2, "run %s", id)
	b.lastTurnBytes = turnStarts[b.modelCalls-1] - turnStarts[b.modelCalls-2]
	return b
}

func modelNextInput(ev *historypb.HistoryEvent) (int, bool) {
	attrs := ev.GetActivityTaskScheduledEventAttributes()
	if attrs == nil || attrs.GetActivityType().GetName() != "ModelNext" {
		return 0, false
	}
	return proto.Size(attrs.GetInput()), true
}

// budgetTable renders the figures as the README's Markdown table, each
// mode's figures also as a ratio to the inline baseline of the same run.
func budgetTable(modes []conversationMode, got map[conversationMode]map[int]budget) string {
	var sb strings.Builder
	sb.WriteString("| turns | mode | model calls | history bytes | bytes per model call | vs baseline | last turn bytes | vs baseline | last ModelNext input bytes |\n")
	sb.WriteString("|---:|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, turns := range budgetTurns {
		base := got[inlineMode][turns]
		for _, mode := range modes {
			b := got[mode][turns]
			fmt.Fprintf(&sb, "| %d | %s | %d | %d | %d | %.2f | %d | %.2f | %d |\n",
				turns, mode.name, b.modelCalls, b.historyBytes, b.perModelCall(),
				float64(b.perModelCall())/float64(base.perModelCall()),
				b.lastTurnBytes, float64(b.lastTurnBytes)/float64(base.lastTurnBytes), b.lastInputBytes)
		}
	}
	return sb.String()
}
