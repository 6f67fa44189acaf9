package payloadstore_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/proto"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/agentworker"
	"github.com/agentrun/agentrun/internal/payloadstore"
	"github.com/agentrun/agentrun/internal/temporalclient"
	"github.com/agentrun/agentrun/internal/testenv"
	"github.com/agentrun/agentrun/runclient"
)

// fixtureSecret is in a patch of the sandbox's acme/widgets#1: the text a
// read records in the run's history.
const fixtureSecret = "AKIAIOSFODNN7EXAMPLE"

func offloader(t *testing.T, root string) *payloadstore.Offloader {
	t.Helper()
	d, err := payloadstore.OpenDir(root)
	require.NoError(t, err)
	o, err := payloadstore.New(d, payloadstore.DefaultThreshold)
	require.NoError(t, err)
	return o
}

// rawHistory is a run's history as the server keeps it (no store to resolve
// references): its size and its bytes.
func rawHistory(t *testing.T, c client.Client, runID string) (size int, raw []byte) {
	t.Helper()
	iter := c.GetWorkflowHistory(context.Background(), runID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for iter.HasNext() {
		ev, err := iter.Next()
		require.NoError(t, err)
		b, err := proto.Marshal(ev)
		require.NoError(t, err)
		size += proto.Size(ev)
		raw = append(raw, b...)
	}
	return size, raw
}

func approveAndFinish(t *testing.T, stack *testenv.Stack, run client.WorkflowRun) api.RunResult {
	t.Helper()
	action := stack.WaitForApproval(t, run.GetID())
	stack.Approve(t, run.GetID(), action.ID)
	return stack.WaitForResult(t, run)
}

// The same approved review, once with the store and once without: with it,
// the pull request's text is nowhere in the server's history, the history is
// under half the size, and the run reads, lists, posts and ends as the other.
func TestARunWithAPayloadStoreKeepsThePullRequestOutOfItsHistory(t *testing.T) {
	testenv.NeedsDevServer(t)
	stack := testenv.StartStack(t, testenv.StackOptions{TaskQueue: "payload-store", Payloads: offloader(t, t.TempDir())})
	const inlineQueue = "payload-inline"
	inline := agentworker.NewWithActivities(stack.PlainClient(), inlineQueue, stack.Activities(nil))
	require.NoError(t, inline.Start())
	t.Cleanup(inline.Stop)

	stored := stack.StartReview(t, stack.TaskQueue)
	action := stack.WaitForApproval(t, stored.GetID())
	ctx, cancel := context.WithTimeout(context.Background(), testenv.RunTimeout)
	defer cancel()
	// The inbox reads the run's memo, which is in the store too.
	listed, err := runclient.New(stack.Client(), runclient.Options{}).ListWaiting(ctx)
	require.NoError(t, err)
	require.Len(t, listed, 1)
	require.Equal(t, action.ID, listed[0].ActionID)
	require.Equal(t, action.ArgsHash, listed[0].ArgsHash)
	stack.Approve(t, stored.GetID(), action.ID)
	storedResult := stack.WaitForResult(t, stored)

	plain := stack.StartReview(t, inlineQueue)
	inlineResult := approveAndFinish(t, stack, plain)

	require.Equal(t, api.RunCompleted, storedResult.Status, storedResult.Error)
	require.Equal(t, api.RunCompleted, inlineResult.Status, inlineResult.Error)
	require.Len(t, storedResult.Outcome.Posted, 1)
	posted := 0
	for _, c := range stack.Sandbox().Comments("acme", "widgets", 1) {
		if strings.Contains(c.Body, "agent-operation:"+stored.GetID()+":") {
			posted++
		}
	}
	require.Equal(t, 1, posted, "the run with the store posted its comment once")

	storedSize, storedRaw := rawHistory(t, stack.PlainClient(), stored.GetID())
	inlineSize, inlineRaw := rawHistory(t, stack.PlainClient(), plain.GetID())
	require.Contains(t, string(inlineRaw), fixtureSecret, "the inline run records the patch it read")
	require.NotContains(t, string(storedRaw), fixtureSecret)
	require.Less(t, storedSize*100, inlineSize*60, "stored %d bytes, inline %d", storedSize, inlineSize)
	t.Logf("history bytes: %d with the store, %d inline", storedSize, inlineSize)

	// A program without the store cannot read what is in it, and says so.
	var res api.RunResult
	err = stack.PlainClient().GetWorkflow(ctx, stored.GetID(), "").Get(ctx, &res)
	require.ErrorContains(t, err, "encoding agentrun/ref: payload encoding is not supported")
}

// syncBuffer collects a worker's logs.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Whoever can write the store cannot change what a run does: with every
// stored payload of a waiting run replaced, a new worker (nothing in memory)
// refuses to replay it, and the approved comment is not posted, neither as
// proposed nor as edited.
func TestAPayloadEditedInTheStoreStopsTheRunBeforeItPosts(t *testing.T) {
	testenv.NeedsDevServer(t)
	root := t.TempDir()
	stack := testenv.StartStack(t, testenv.StackOptions{TaskQueue: "payload-store-idle", Payloads: offloader(t, root)})
	const queue = "payload-store-edited"
	first := agentworker.NewWithActivities(stack.Client(), queue, stack.Activities(nil))
	require.NoError(t, first.Start())
	run := stack.StartReview(t, queue)
	action := stack.WaitForApproval(t, run.GetID())
	first.Stop()

	edited := 0
	require.NoError(t, filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		// Every byte changed, every length kept: each blob still reads,
		// and none hashes to its reference.
		for i := range raw {
			raw[i] ^= 0x20
		}
		edited++
		return os.WriteFile(path, raw, 0o600)
	}))
	require.Positive(t, edited)

	logs := &syncBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	c, err := temporalclient.Dial(context.Background(), temporalclient.Config{
		Address: stack.TemporalAddress(), Namespace: temporalclient.DefaultNamespace, Payloads: offloader(t, root),
	}, logger)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	second := agentworker.NewWithActivities(c, queue, stack.Activities(nil))
	require.NoError(t, second.Start())
	t.Cleanup(second.Stop)
	stack.Approve(t, run.GetID(), action.ID)

	require.Eventually(t, func() bool {
		return strings.Contains(logs.String(), payloadstore.ErrMismatch.Error())
	}, time.Minute, 50*time.Millisecond, "the new worker never said why it cannot replay the run")
	for _, c := range stack.Sandbox().Comments("acme", "widgets", 1) {
		require.NotContains(t, c.Body, "agent-operation:"+run.GetID()+":", "a run whose history cannot be checked posted")
	}
	desc, err := stack.PlainClient().DescribeWorkflowExecution(context.Background(), run.GetID(), "")
	require.NoError(t, err)
	require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, desc.GetWorkflowExecutionInfo().GetStatus())
}
