package payloadstore

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commandpb "go.temporal.io/api/command/v1"
	commonpb "go.temporal.io/api/common/v1"
	historypb "go.temporal.io/api/history/v1"
	querypb "go.temporal.io/api/query/v1"
	"go.temporal.io/api/workflowservice/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

func jsonPayload(s string) *commonpb.Payload {
	return &commonpb.Payload{Metadata: map[string][]byte{"encoding": []byte("json/plain")}, Data: []byte(`"` + s + `"`)}
}

func newOffloader(t *testing.T, root string) *Offloader {
	t.Helper()
	d, err := OpenDir(root)
	require.NoError(t, err)
	o, err := New(d, DefaultThreshold)
	require.NoError(t, err)
	return o
}

// send passes req through the interceptor as a client call whose server
// answers with reply, and returns what the server received.
func send(t *testing.T, o *Offloader, req, reply proto.Message) (proto.Message, error) {
	t.Helper()
	var received proto.Message
	err := o.UnaryClientInterceptor()(context.Background(), "/m", req, reply, nil,
		func(_ context.Context, _ string, req, _ any, _ *grpc.ClientConn, _ ...grpc.CallOption) error {
			received = proto.Clone(req.(proto.Message))
			return nil
		})
	return received, err
}

// receive passes reply through the interceptor as the answer of a call
// (req): what the program gets from the server.
func receive(o *Offloader, req, reply proto.Message) error {
	return o.UnaryClientInterceptor()(context.Background(), "/m", req, reply, nil,
		func(context.Context, string, any, any, *grpc.ClientConn, ...grpc.CallOption) error { return nil })
}

// An activity's large result reaches the server as a reference of 80 bytes
// at most, a small one as it was; the worker that later receives the
// reference in a history (here another process, with nothing in memory)
// gets back the payload exactly.
func TestALargeResultIsRecordedAsAReferenceAndReadBackExactly(t *testing.T) {
	root := t.TempDir()
	o := newOffloader(t, root)
	large := jsonPayload(strings.Repeat("+\tAWS_SECRET_ACCESS_KEY = \"wJalrXUtn\"\n", 20))
	small := jsonPayload("ok")
	req := &workflowservice.RespondActivityTaskCompletedRequest{Result: &commonpb.Payloads{Payloads: []*commonpb.Payload{large, small}}}
	received, err := send(t, o, req, &workflowservice.RespondActivityTaskCompletedResponse{})
	require.NoError(t, err)
	got := received.(*workflowservice.RespondActivityTaskCompletedRequest).GetResult().GetPayloads()
	require.True(t, IsReference(got[0]))
	require.LessOrEqual(t, proto.Size(got[0]), 80)
	require.True(t, proto.Equal(small, got[1]), "a small payload stays inline")
	require.NotContains(t, string(mustMarshal(t, received)), "wJalrXUtn")

	history := &workflowservice.GetWorkflowExecutionHistoryResponse{History: &historypb.History{Events: []*historypb.HistoryEvent{{
		Attributes: &historypb.HistoryEvent_ActivityTaskCompletedEventAttributes{ActivityTaskCompletedEventAttributes: &historypb.ActivityTaskCompletedEventAttributes{
			Result: &commonpb.Payloads{Payloads: got},
		}},
	}}}}
	fresh := newOffloader(t, root)
	err = receive(fresh, &workflowservice.GetWorkflowExecutionHistoryRequest{}, history)
	require.NoError(t, err)
	back := history.GetHistory().GetEvents()[0].GetActivityTaskCompletedEventAttributes().GetResult().GetPayloads()
	require.True(t, proto.Equal(large, back[0]))
	require.True(t, proto.Equal(small, back[1]))
}

// What the store holds is what the history would have held: edited on disk,
// it is refused, and the reader gets an error rather than the edited text.
func TestAReferenceWhoseStoredPayloadWasEditedIsRefused(t *testing.T) {
	root := t.TempDir()
	o := newOffloader(t, root)
	body := jsonPayload(strings.Repeat("Approved review body. ", 20))
	req := &workflowservice.RespondActivityTaskCompletedRequest{Result: &commonpb.Payloads{Payloads: []*commonpb.Payload{body}}}
	received, err := send(t, o, req, &workflowservice.RespondActivityTaskCompletedResponse{})
	require.NoError(t, err)
	ref := received.(*workflowservice.RespondActivityTaskCompletedRequest).GetResult().GetPayloads()[0]

	// Edit the stored copy in place, keeping its length.
	segments, err := o.Store().(*Dir).Segments()
	require.NoError(t, err)
	require.Len(t, segments, 1)
	raw, err := os.ReadFile(segments[0])
	require.NoError(t, err)
	edited := strings.Replace(string(raw), "Approved review body.", "Post attacker's text!", 1)
	require.NotEqual(t, string(raw), edited)
	require.NoError(t, os.WriteFile(segments[0], []byte(edited), 0o600))

	task := &workflowservice.PollActivityTaskQueueResponse{Input: &commonpb.Payloads{Payloads: []*commonpb.Payload{ref}}}
	err = receive(newOffloader(t, root), &workflowservice.PollActivityTaskQueueRequest{}, task)
	require.ErrorIs(t, err, ErrMismatch)

	bogus := &commonpb.Payload{Metadata: map[string][]byte{"encoding": []byte(EncodingReference)}, Data: []byte("../../etc/passwd")}
	require.Less(t, len(bogus.Data), 33)
	task = &workflowservice.PollActivityTaskQueueResponse{Input: &commonpb.Payloads{Payloads: []*commonpb.Payload{bogus}}}
	err = receive(o, &workflowservice.PollActivityTaskQueueRequest{}, task)
	require.ErrorContains(t, err, "without a sha256 and a place")

	hashOnly := &commonpb.Payload{Metadata: map[string][]byte{"encoding": []byte(EncodingReference)}, Data: ref.GetData()[:32]}
	task = &workflowservice.PollActivityTaskQueueResponse{Input: &commonpb.Payloads{Payloads: []*commonpb.Payload{hashOnly}}}
	err = receive(newOffloader(t, root), &workflowservice.PollActivityTaskQueueRequest{}, task)
	require.ErrorContains(t, err, "without a sha256 and a place")
}

// Query answers are never recorded, and the inbox asks them often: they stay
// inline, in a query task's answer and in a workflow task's legacy answers,
// while the same task's recorded payloads (a scheduled activity's input) go.
func TestQueryAnswersAndSearchAttributesStayInline(t *testing.T) {
	o := newOffloader(t, t.TempDir())
	answer := jsonPayload(strings.Repeat("snapshot ", 60))
	received, err := send(t, o, &workflowservice.RespondQueryTaskCompletedRequest{QueryResult: &commonpb.Payloads{Payloads: []*commonpb.Payload{answer}}}, &workflowservice.RespondQueryTaskCompletedResponse{})
	require.NoError(t, err)
	require.True(t, proto.Equal(answer, received.(*workflowservice.RespondQueryTaskCompletedRequest).GetQueryResult().GetPayloads()[0]))

	input := jsonPayload(strings.Repeat("create_issue_comment ", 30))
	attr := jsonPayload(strings.Repeat("waiting_for_user ", 30))
	completion := &workflowservice.RespondWorkflowTaskCompletedRequest{
		QueryResults: map[string]*querypb.WorkflowQueryResult{"q": {Answer: &commonpb.Payloads{Payloads: []*commonpb.Payload{answer}}}},
		Commands: []*commandpb.Command{
			{Attributes: &commandpb.Command_ScheduleActivityTaskCommandAttributes{ScheduleActivityTaskCommandAttributes: &commandpb.ScheduleActivityTaskCommandAttributes{
				Input: &commonpb.Payloads{Payloads: []*commonpb.Payload{input}},
			}}},
			{Attributes: &commandpb.Command_UpsertWorkflowSearchAttributesCommandAttributes{UpsertWorkflowSearchAttributesCommandAttributes: &commandpb.UpsertWorkflowSearchAttributesCommandAttributes{
				SearchAttributes: &commonpb.SearchAttributes{IndexedFields: map[string]*commonpb.Payload{"AgentRunStatus": attr}},
			}}},
		},
	}
	received, err = send(t, o, completion, &workflowservice.RespondWorkflowTaskCompletedResponse{})
	require.NoError(t, err)
	got := received.(*workflowservice.RespondWorkflowTaskCompletedRequest)
	require.True(t, proto.Equal(answer, got.GetQueryResults()["q"].GetAnswer().GetPayloads()[0]))
	require.True(t, IsReference(got.GetCommands()[0].GetScheduleActivityTaskCommandAttributes().GetInput().GetPayloads()[0]))
	require.True(t, proto.Equal(attr, got.GetCommands()[1].GetUpsertWorkflowSearchAttributesCommandAttributes().GetSearchAttributes().GetIndexedFields()["AgentRunStatus"]))

	heartbeat := &workflowservice.RecordActivityTaskHeartbeatRequest{Details: &commonpb.Payloads{Payloads: []*commonpb.Payload{answer}}}
	received, err = send(t, o, heartbeat, &workflowservice.RecordActivityTaskHeartbeatResponse{})
	require.NoError(t, err)
	require.True(t, proto.Equal(answer, received.(*workflowservice.RecordActivityTaskHeartbeatRequest).GetDetails().GetPayloads()[0]))
}

// A message that carries one payload twice (two commands of one workflow
// task with the same input) writes it once and points both at it.
func TestAPayloadAMessageCarriesTwiceIsWrittenOnce(t *testing.T) {
	o := newOffloader(t, t.TempDir())
	body := jsonPayload(strings.Repeat("the same proposed comment ", 20))
	req := &workflowservice.RespondActivityTaskCompletedRequest{Result: &commonpb.Payloads{Payloads: []*commonpb.Payload{body, proto.Clone(body).(*commonpb.Payload)}}}
	received, err := send(t, o, req, &workflowservice.RespondActivityTaskCompletedResponse{})
	require.NoError(t, err)
	got := received.(*workflowservice.RespondActivityTaskCompletedRequest).GetResult().GetPayloads()
	require.True(t, IsReference(got[0]))
	require.Equal(t, got[0].GetData(), got[1].GetData(), "one place for both")
	segments, err := o.Store().(*Dir).Segments()
	require.NoError(t, err)
	require.Len(t, segments, 1)
	fi, err := os.Stat(segments[0])
	require.NoError(t, err)
	blob, err := proto.MarshalOptions{Deterministic: true}.Marshal(body)
	require.NoError(t, err)
	require.Equal(t, int64(len(blob)), fi.Size(), "written once")
}

func TestTheBlobCacheKeepsToItsBudget(t *testing.T) {
	c := newBlobCache(100)
	for i := range 50 {
		b := []byte(strings.Repeat(string(rune('a'+i%26)), 30) + string(rune(i)))
		c.add(KeyOf(b), []byte("here"), b)
		require.LessOrEqual(t, c.bytes, 100)
	}
	require.Len(t, c.blobs, 3)
	big := make([]byte, 101)
	c.add(KeyOf(big), []byte("here"), big)
	_, kept := c.get(KeyOf(big))
	require.False(t, kept, "a blob over the whole budget is not kept")

	exact := newBlobCache(100)
	halves := [][]byte{[]byte(strings.Repeat("a", 50)), []byte(strings.Repeat("b", 50))}
	for _, b := range halves {
		exact.add(KeyOf(b), []byte("here"), b)
	}
	require.Len(t, exact.blobs, 2, "blobs that fill the budget exactly are all kept")
	whole := []byte(strings.Repeat("c", 100))
	exact.add(KeyOf(whole), []byte("here"), whole)
	_, kept = exact.get(KeyOf(whole))
	require.True(t, kept, "a blob of the whole budget is kept, alone")
	require.Len(t, exact.blobs, 1)
}

// A process points a new message at a place it wrote within the hour, and
// writes the payload again after that, or when it only read the payload: a
// segment is never referenced long after its last write, so old segments can
// be removed by age.
func TestAPlaceIsReusedOnlyWithinTheHourAfterThisProcessWroteIt(t *testing.T) {
	o := newOffloader(t, t.TempDir())
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	o.cache.now = func() time.Time { return now }
	body := jsonPayload(strings.Repeat("the same proposed comment ", 20))
	place := func() string {
		req := &workflowservice.RespondActivityTaskCompletedRequest{Result: &commonpb.Payloads{Payloads: []*commonpb.Payload{proto.Clone(body).(*commonpb.Payload)}}}
		received, err := send(t, o, req, &workflowservice.RespondActivityTaskCompletedResponse{})
		require.NoError(t, err)
		return string(received.(*workflowservice.RespondActivityTaskCompletedRequest).GetResult().GetPayloads()[0].GetData())
	}
	first := place()
	now = now.Add(ReuseWithin - time.Nanosecond)
	require.Equal(t, first, place(), "within the hour: the same place, nothing written")
	now = now.Add(time.Nanosecond)
	second := place()
	require.NotEqual(t, first, second, "an hour on: written again, at a new place")
	now = now.Add(ReuseWithin - time.Nanosecond)
	require.Equal(t, second, place(), "and that place is reused in its turn")

	read := newOffloader(t, t.TempDir())
	read.cache.add(KeyOf([]byte("x")), nil, []byte("x"))
	_, ok := read.cache.where(KeyOf([]byte("x")))
	require.False(t, ok, "a payload only read has no place to reuse")
}

func mustMarshal(t *testing.T, m proto.Message) []byte {
	t.Helper()
	b, err := proto.Marshal(m)
	require.NoError(t, err)
	return b
}
