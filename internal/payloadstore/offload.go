package payloadstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/api/proxy"
	querypb "go.temporal.io/api/query/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/converter"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// EncodingReference marks a payload that is a reference: its data is the
// sha256 of the stored payload, then its place in the store.
const EncodingReference = "agentrun/ref"

const metadataEncoding = "encoding"

// DefaultThreshold is the smallest payload stored by default: from there a
// reference (about 75 bytes) is at most two fifths of what it replaces. What
// stays inline below it is a run's small change (a read's arguments, a
// status, a signal), while its pull request, patches, model answers,
// previews and memo all go.
const DefaultThreshold = 192

// MinThreshold keeps a reference smaller than what it replaces.
const MinThreshold = 128

// Offloader stores the large payloads of the messages one client sends and
// resolves the references in the messages it receives.
type Offloader struct {
	store     Store
	threshold int
	cache     *blobCache
}

// DefaultCacheBytes bounds the blobs an Offloader keeps in memory. A worker
// reads back most of what it stored moments later (an activity's input in
// its task, a result in the next workflow task); the cache spares it the
// read and the hash. It is small because it is held for as long as runs
// wait: the file system's own cache does the rest.
const DefaultCacheBytes = 4 << 20

// New offloads payloads of threshold bytes and more to store.
func New(store Store, threshold int) (*Offloader, error) {
	if threshold < MinThreshold {
		return nil, fmt.Errorf("threshold %d bytes is under the minimum of %d", threshold, MinThreshold)
	}
	return &Offloader{store: store, threshold: threshold, cache: newBlobCache(DefaultCacheBytes)}, nil
}

// Store is where the payloads go.
func (o *Offloader) Store() Store { return o.store }

// Threshold is the smallest payload stored.
func (o *Offloader) Threshold() int { return o.threshold }

// recorded lists the requests whose payloads the server records in a history
// (or a visibility memo). Heartbeats and query answers are not among them:
// neither is recorded, and both are frequent.
func recorded(req any) bool {
	switch req.(type) {
	case *workflowservice.StartWorkflowExecutionRequest,
		*workflowservice.SignalWithStartWorkflowExecutionRequest,
		*workflowservice.SignalWorkflowExecutionRequest,
		*workflowservice.ExecuteMultiOperationRequest,
		*workflowservice.UpdateWorkflowExecutionRequest,
		*workflowservice.TerminateWorkflowExecutionRequest,
		*workflowservice.RespondWorkflowTaskCompletedRequest,
		*workflowservice.RespondWorkflowTaskFailedRequest,
		*workflowservice.RespondActivityTaskCompletedRequest,
		*workflowservice.RespondActivityTaskCompletedByIdRequest,
		*workflowservice.RespondActivityTaskFailedRequest,
		*workflowservice.RespondActivityTaskFailedByIdRequest,
		*workflowservice.RespondActivityTaskCanceledRequest,
		*workflowservice.RespondActivityTaskCanceledByIdRequest:
		return true
	}
	return false
}

// UnaryClientInterceptor is the gRPC interceptor of one client.
func (o *Offloader) UnaryClientInterceptor() grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		if msg, ok := req.(proto.Message); ok && recorded(req) {
			if err := o.offloadMessage(ctx, msg); err != nil {
				return fmt.Errorf("payload store: %w", err)
			}
		}
		if err := invoker(ctx, method, req, reply, cc, opts...); err != nil {
			return err
		}
		if msg, ok := reply.(proto.Message); ok {
			if err := proxy.VisitPayloads(ctx, msg, proxy.VisitPayloadsOptions{Visitor: o.resolve, SkipSearchAttributes: true}); err != nil {
				return fmt.Errorf("payload store: %w", err)
			}
		}
		return nil
	}
}

// offloadMessage replaces the large payloads of msg with references, and
// returns once the store holds them all: only then may the message go.
func (o *Offloader) offloadMessage(ctx context.Context, msg proto.Message) error {
	var pending []pendingRef
	visit := func(vctx *proxy.VisitPayloadsContext, payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
		return o.offload(vctx, payloads, &pending)
	}
	if err := proxy.VisitPayloads(ctx, msg, proxy.VisitPayloadsOptions{Visitor: visit, SkipSearchAttributes: true}); err != nil {
		return err
	}
	// A payload the message carries twice is written once.
	var blobs [][]byte
	slot := map[Key]int{}
	for _, p := range pending {
		if where, ok := o.cache.where(p.key); ok {
			setReference(p.ref, p.key, where)
		} else if _, ok := slot[p.key]; !ok {
			slot[p.key] = len(blobs)
			blobs = append(blobs, p.blob)
		}
	}
	if len(blobs) == 0 {
		return nil
	}
	where, err := o.store.Put(ctx, blobs)
	if err != nil {
		return err
	}
	for _, p := range pending {
		if i, ok := slot[p.key]; ok {
			setReference(p.ref, p.key, where[i])
			o.cache.add(p.key, where[i], p.blob)
		}
	}
	return nil
}

// pendingRef is a payload on its way to the store: ref stands in for it in
// the message and gets its place once Put says where.
type pendingRef struct {
	key  Key
	blob []byte
	ref  *commonpb.Payload
}

func (o *Offloader) offload(ctx *proxy.VisitPayloadsContext, payloads []*commonpb.Payload, pending *[]pendingRef) ([]*commonpb.Payload, error) {
	// A legacy query's answer rides in a workflow task's completion.
	if _, ok := ctx.Parent.(*querypb.WorkflowQueryResult); ok {
		return payloads, nil
	}
	return replaced(payloads, func(p *commonpb.Payload) (*commonpb.Payload, error) {
		if proto.Size(p) < o.threshold || IsReference(p) {
			return p, nil
		}
		blob, err := proto.MarshalOptions{Deterministic: true}.Marshal(p)
		if err != nil {
			return nil, fmt.Errorf("serialize payload: %w", err)
		}
		ref := &commonpb.Payload{}
		*pending = append(*pending, pendingRef{key: KeyOf(blob), blob: blob, ref: ref})
		return ref, nil
	})
}

func (o *Offloader) resolve(ctx *proxy.VisitPayloadsContext, payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	return o.resolveAll(ctx, payloads)
}

// resolveAll puts back the payload of every reference in payloads.
func (o *Offloader) resolveAll(ctx context.Context, payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	return replaced(payloads, func(p *commonpb.Payload) (*commonpb.Payload, error) {
		if !IsReference(p) {
			return p, nil
		}
		return o.fetch(ctx, p)
	})
}

// replaced is payloads with each one swap changes, in a copy of the slice
// made at the first change: the caller's slice stays as it was.
func replaced(payloads []*commonpb.Payload, swap func(*commonpb.Payload) (*commonpb.Payload, error)) ([]*commonpb.Payload, error) {
	var out []*commonpb.Payload
	for i, p := range payloads {
		q, err := swap(p)
		if err != nil {
			return nil, err
		}
		if q == p {
			continue
		}
		if out == nil {
			out = append([]*commonpb.Payload(nil), payloads...)
		}
		out[i] = q
	}
	if out == nil {
		return payloads, nil
	}
	return out, nil
}

func (o *Offloader) fetch(ctx context.Context, ref *commonpb.Payload) (*commonpb.Payload, error) {
	var key Key
	data := ref.GetData()
	if len(data) <= len(key) {
		return nil, errors.New("a payload reference without a sha256 and a place")
	}
	copy(key[:], data)
	blob, ok := o.cache.get(key)
	if !ok {
		var err error
		if blob, err = o.store.Get(ctx, data[len(key):]); err != nil {
			return nil, err
		}
		if KeyOf(blob) != key {
			return nil, fmt.Errorf("payload %s in %s: %w", key, o.store, ErrMismatch)
		}
		// Read, not written here: its place may be in an old segment.
		o.cache.add(key, nil, blob)
	}
	p := &commonpb.Payload{}
	if err := proto.Unmarshal(blob, p); err != nil {
		return nil, fmt.Errorf("payload %s: %w", key, err)
	}
	if IsReference(p) {
		return nil, fmt.Errorf("payload %s is itself a reference", key)
	}
	return p, nil
}

// IsReference reports whether p is a reference to a stored payload.
func IsReference(p *commonpb.Payload) bool {
	return string(p.GetMetadata()[metadataEncoding]) == EncodingReference
}

// setReference makes p the reference to the payload key stored at where:
// the sha256, then the place.
func setReference(p *commonpb.Payload, key Key, where []byte) {
	p.Metadata = map[string][]byte{metadataEncoding: []byte(EncodingReference)}
	p.Data = append(append(make([]byte, 0, len(key)+len(where)), key[:]...), where...)
}

// blobCache keeps recently stored and read blobs, up to a byte budget,
// evicting the oldest first. Its blobs are checked (or were made here).
type blobCache struct {
	mu       sync.Mutex
	maxBytes int
	bytes    int
	blobs    map[Key]cached
	order    []Key // insertion order; order[head:] are live or stale keys
	head     int
	now      func() time.Time
}

func newBlobCache(maxBytes int) *blobCache {
	return &blobCache{maxBytes: maxBytes, blobs: map[Key]cached{}, now: time.Now}
}

// ReuseWithin bounds how long a process points new messages at a place it
// wrote before, instead of writing the payload again: a segment is then never
// referenced more than this long after its last write, which is what makes
// removing old segments by age safe (docs/operations.md).
const ReuseWithin = time.Hour

// cached is a blob and, when this process wrote it, where and when.
type cached struct {
	where, blob []byte
	written     time.Time
}

// where is the place of a blob this process wrote less than ReuseWithin ago.
func (c *blobCache) where(k Key) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.blobs[k]
	if !ok || e.where == nil || c.now().Sub(e.written) >= ReuseWithin {
		return nil, false
	}
	return e.where, true
}

func (c *blobCache) get(k Key) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.blobs[k]
	return e.blob, ok
}

func (c *blobCache) add(k Key, where, blob []byte) {
	if len(blob) > c.maxBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.blobs[k]; ok {
		if where != nil { // written again: its newest place
			e.where, e.written = append([]byte(nil), where...), c.now()
			c.blobs[k] = e
		}
		return
	}
	e := cached{blob: blob}
	if where != nil {
		e.where, e.written = append([]byte(nil), where...), c.now()
	}
	c.blobs[k] = e
	c.order = append(c.order, k)
	c.bytes += len(blob)
	for c.bytes > c.maxBytes {
		old := c.order[c.head]
		c.head++
		c.bytes -= len(c.blobs[old].blob)
		delete(c.blobs, old)
	}
	if c.head > len(c.order)/2 {
		c.order = append([]Key(nil), c.order[c.head:]...)
		c.head = 0
	}
}

// Codec resolves references for the remote codec endpoint (the Web UI and
// `temporal --codec-endpoint`), which sees payloads as the history keeps
// them. Its Encode leaves payloads as they are: what the UI encodes (a
// signal it sends) goes through a client, which stores it.
func (o *Offloader) Codec(ctx context.Context) converter.PayloadCodec {
	return refCodec{ctx: ctx, o: o}
}

type refCodec struct {
	ctx context.Context
	o   *Offloader
}

func (c refCodec) Encode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	return payloads, nil
}

// Decode's errors reach the endpoint's caller as they are: they say what is
// wrong with a reference, never where the store is.
func (c refCodec) Decode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out, err := c.o.resolveAll(c.ctx, payloads)
	switch {
	case err == nil:
		return out, nil
	case errors.Is(err, ErrMismatch):
		return nil, clientError{cause: err, text: ErrMismatch.Error()}
	case errors.Is(err, ErrNotFound):
		return nil, clientError{cause: err, text: ErrNotFound.Error()}
	default:
		return nil, clientError{cause: err, text: "a payload reference that the payload store cannot resolve"}
	}
}

// clientError is a resolution error as a remote caller may read it.
type clientError struct {
	cause error
	text  string
}

func (e clientError) Error() string { return e.text }

func (e clientError) Unwrap() error { return e.cause }
