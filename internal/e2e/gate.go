package e2e

import (
	"context"
	"fmt"
	"net"
	"sync"
	"testing"

	"go.temporal.io/sdk/client"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// historyWrites are the frontend calls by which a worker adds events to a
// run's history: a task's completion, carrying what it did and decided.
// The other event a worker causes, a workflow task's start, the server
// writes when it hands the task to a waiting poll.
var historyWrites = map[string]bool{
	"/temporal.api.workflowservice.v1.WorkflowService/RespondWorkflowTaskCompleted":     true,
	"/temporal.api.workflowservice.v1.WorkflowService/RespondWorkflowTaskFailed":        true,
	"/temporal.api.workflowservice.v1.WorkflowService/RespondActivityTaskCompleted":     true,
	"/temporal.api.workflowservice.v1.WorkflowService/RespondActivityTaskFailed":        true,
	"/temporal.api.workflowservice.v1.WorkflowService/RespondActivityTaskCanceled":      true,
	"/temporal.api.workflowservice.v1.WorkflowService/RespondActivityTaskCompletedById": true,
	"/temporal.api.workflowservice.v1.WorkflowService/RespondActivityTaskFailedById":    true,
	"/temporal.api.workflowservice.v1.WorkflowService/RespondActivityTaskCanceledById":  true,
}

// KillGate stands between the workers of a test and the Temporal frontend
// (a gRPC proxy: workers dial Address) so that a worker can be SIGKILLed at
// an exact point of a run's history. It forwards every call as it comes,
// but a worker's history writes one at a time, and once armed for a run
// and a history length N it kills the worker at the first write that
// meets N (KillMode says which side of it). A kill timed by watching the
// history from outside lands a few events late: the worker writes its next
// batch while the watcher is told of the last one.
type KillGate struct {
	addr    string
	backend *grpc.ClientConn
	history client.Client

	// mu serializes the history writes and guards what follows.
	mu     sync.Mutex
	worker *Process
	arm    *gateArm
	kills  chan int
}

// gateArm is the kill a gate waits to make.
type gateArm struct {
	runID  string
	target int
	mode   KillMode
}

// KillMode says on which side of a history write a worker dies.
type KillMode string

const (
	// KillAfterWrite kills the worker once the write that brought the
	// history to N events is recorded, before the worker hears the answer:
	// a task it was handed with the answer (an eager activity) never runs.
	KillAfterWrite KillMode = "after the write"
	// KillBeforeWrite lets the worker do what follows event N (run the
	// activity it was handed, the workflow task it took) and kills it
	// before it reports that: the work is done and never recorded. A run
	// that writes nothing more (it waits for a person, or it closed) dies
	// at Settle.
	KillBeforeWrite KillMode = "before the next write"
)

// StartKillGate listens on a free port and forwards to the dev server at
// backend; history is the test's client, to read history lengths.
func StartKillGate(t testing.TB, backend string, history client.Client) *KillGate {
	t.Helper()
	conn, err := grpc.NewClient(backend, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatalf("kill gate: dial %s: %v", backend, err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("kill gate: listen: %v", err)
	}
	g := &KillGate{addr: lis.Addr().String(), backend: conn, history: history, kills: make(chan int, 1)}
	srv := grpc.NewServer(grpc.ForceServerCodec(rawCodec{}), grpc.UnknownServiceHandler(g.forward))
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(func() {
		srv.Stop()
		conn.Close()
	})
	return g
}

// Address is what a worker behind the gate takes as TEMPORAL_ADDRESS.
func (g *KillGate) Address() string { return g.addr }

// Serve makes p the worker the gate kills.
func (g *KillGate) Serve(p *Process) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.worker = p
}

// Arm makes the gate kill its worker, as mode says, once runID's history
// holds target events; the history length at the kill is then sent on Kills.
func (g *KillGate) Arm(runID string, target int, mode KillMode) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.arm = &gateArm{runID: runID, target: target, mode: mode}
}

// Settle makes the armed kill now if the history has reached it: for a
// run that will write nothing more until a person acts, or ever. It waits
// for a write in flight.
func (g *KillGate) Settle(ctx context.Context) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.killAt(ctx)
}

// Disarm cancels a kill not made yet.
func (g *KillGate) Disarm() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.arm = nil
}

// Kills delivers the history length at each kill the gate made.
func (g *KillGate) Kills() <-chan int { return g.kills }

// forward passes one call to the frontend. Every call of the Temporal API
// is unary: one message each way.
func (g *KillGate) forward(_ any, stream grpc.ServerStream) error {
	method, ok := grpc.MethodFromServerStream(stream)
	if !ok {
		return status.Error(codes.Internal, "kill gate: no method")
	}
	var req []byte
	if err := stream.RecvMsg(&req); err != nil {
		return err
	}
	ctx := stream.Context()
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		ctx = metadata.NewOutgoingContext(ctx, md.Copy())
	}
	if historyWrites[method] {
		return g.write(ctx, stream, method, req)
	}
	return g.call(ctx, stream, method, req)
}

func (g *KillGate) call(ctx context.Context, stream grpc.ServerStream, method string, req []byte) error {
	resp, err := g.invoke(ctx, stream, method, req)
	if err != nil {
		return err
	}
	return reply(stream, resp)
}

// invoke makes the call at the frontend; the answer is not passed on yet.
func (g *KillGate) invoke(ctx context.Context, stream grpc.ServerStream, method string, req []byte) ([]byte, error) {
	var resp []byte
	var header, trailer metadata.MD
	err := g.backend.Invoke(ctx, method, &req, &resp, grpc.ForceCodec(rawCodec{}), grpc.Header(&header), grpc.Trailer(&trailer))
	stream.SetTrailer(trailer)
	if err != nil {
		return nil, err
	}
	return resp, stream.SetHeader(header)
}

func reply(stream grpc.ServerStream, resp []byte) error {
	return stream.SendMsg(&resp)
}

// write forwards a history write unless the armed point is reached, in
// which case the worker dies instead; and, killing after the write, once
// the write is made the worker dies before it hears the answer if the
// write reached the point.
func (g *KillGate) write(ctx context.Context, stream grpc.ServerStream, method string, req []byte) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.killAt(ctx) {
		return status.Error(codes.Unavailable, "kill gate: the worker was killed before this write")
	}
	resp, err := g.invoke(ctx, stream, method, req)
	if g.arm != nil && g.arm.mode == KillAfterWrite && g.killAt(ctx) {
		return status.Error(codes.Unavailable, "kill gate: the worker was killed after this write")
	}
	if err != nil {
		return err
	}
	return reply(stream, resp)
}

// killAt SIGKILLs the worker if the armed run's history holds the armed
// number of events, and reports whether it did. The caller holds g.mu.
func (g *KillGate) killAt(ctx context.Context) bool {
	if g.arm == nil || g.worker == nil {
		return false
	}
	// The worker's own call may end first; the look at the history may not.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), queryTimeout)
	defer cancel()
	n, err := historyLength(ctx, g.history, g.arm.runID)
	if err != nil || n < g.arm.target {
		return false
	}
	g.worker.Kill()
	g.arm = nil
	g.kills <- n
	return true
}

// rawCodec passes messages through as bytes: the gate never decodes them.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) {
	b, ok := v.(*[]byte)
	if !ok {
		return nil, fmt.Errorf("kill gate: marshal %T", v)
	}
	return *b, nil
}

func (rawCodec) Unmarshal(data []byte, v any) error {
	b, ok := v.(*[]byte)
	if !ok {
		return fmt.Errorf("kill gate: unmarshal into %T", v)
	}
	*b = append((*b)[:0], data...)
	return nil
}

// Name is proto's, so that the frontend reads the bytes as the worker sent them.
func (rawCodec) Name() string { return "proto" }
