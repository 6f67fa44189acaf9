// Package payloadstore keeps large payloads out of workflow histories (the
// claim-check pattern). A payload at or over a threshold that a process sends
// to be recorded (an activity's input or result, a workflow's input, result
// or memo, a signal) is written to a store, and the history records a
// reference of about 75 bytes instead: the payload's sha256 and where it is.
// Whatever reads the payload back (a worker replaying, the inbox listing
// memos, a client reading a result) finds the reference, reads the store,
// and takes the bytes only if they hash to it.
//
// It works on the gRPC messages of one client (Offloader.UnaryClientInterceptor), under the data
// converter: payloads are encrypted (AGENTRUN_PAYLOAD_KEYS) before they are
// stored, so the store holds what the history would have held. Query answers
// are never stored: they are not recorded, and the inbox asks them often.
//
// Why not the SDK's own External Storage (converter.ExternalStorage, still
// experimental): it stores query answers too, and its reference (a protojson
// message naming the driver) takes about 190 bytes, made for payloads of
// 256 KiB. Here most payloads worth moving are 0.2 to 2 KB, and at 190
// bytes a reference the approved run's history stays over twice the bare
// shape's.
package payloadstore

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Key names a payload by the sha256 of its serialized bytes.
type Key [sha256.Size]byte

// KeyOf is the key of blob.
func KeyOf(blob []byte) Key { return sha256.Sum256(blob) }

func (k Key) String() string { return hex.EncodeToString(k[:]) }

// ErrNotFound is a reference to a place the store does not have.
var ErrNotFound = errors.New("payload not in the payload store")

// ErrMismatch is a stored payload that does not hash to its reference: the
// store was edited or damaged. It is never handed on.
var ErrMismatch = errors.New("payload in the payload store does not match its reference")

// MaxBlobBytes bounds what a reference may ask to read, so that a forged one
// cannot make a process allocate without end. Temporal's own limit on a
// payload is 2 MiB.
const MaxBlobBytes = 16 << 20

// Store holds blobs. Put appends a batch (the payloads of one message) and
// returns, for each, where it is: a few bytes the reference carries. It
// returns once all of it is durable.
type Store interface {
	Put(ctx context.Context, blobs [][]byte) ([][]byte, error)
	Get(ctx context.Context, where []byte) ([]byte, error)
	// String says where the store is, for start-up logs.
	String() string
}

// Dir is a Store in a directory every program can read: each process
// appends to a segment file of its own (named at random, so that processes
// never share one), and reads any. A blob is where its segment, offset and
// length say. Appending costs no file creation per payload (which costs
// more than the write on a busy file system), and old segments are removed
// whole (docs/operations.md says when).
type Dir struct {
	root string
	// noSync leaves writes to the page cache: they survive a process
	// crash, not a power loss, as the dev server's SQLite does at
	// synchronous=normal (make up).
	noSync bool

	// rotateAt is the size past which the next Put starts a new segment.
	rotateAt int64

	mu      sync.Mutex // over segment and size
	segment *segment
	size    int64
}

// segment is the file a process appends to. Its syncs run outside Dir.mu,
// so that the file system can commit the syncs of concurrent messages
// together; pending holds its close until they are done.
type segment struct {
	f       *os.File
	name    [segmentIDBytes]byte
	pending sync.WaitGroup
}

// retire closes seg once the syncs in flight on it are done.
func (seg *segment) retire() {
	go func() {
		seg.pending.Wait()
		seg.f.Close()
	}()
}

const (
	segmentIDBytes = 8
	// maxSegmentBytes is where a process starts a new segment.
	maxSegmentBytes = 64 << 20
	segmentSuffix   = ".seg"
)

// OpenDir opens (and creates, mode 0700) the store at root, an absolute path.
// Each Put is synced before it returns.
func OpenDir(root string) (*Dir, error) {
	if !filepath.IsAbs(root) {
		return nil, fmt.Errorf("%q is not an absolute path", root)
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, fmt.Errorf("create payload store: %w", err)
	}
	return &Dir{root: filepath.Clean(root), rotateAt: maxSegmentBytes}, nil
}

// OpenDirUnsynced is OpenDir without the syncs: for a store beside a
// server that does not sync its own writes either (a dev server). A synced
// write costs about a millisecond on a shared virtual disk, and a run makes
// about ten.
func OpenDirUnsynced(root string) (*Dir, error) {
	d, err := OpenDir(root)
	if err != nil {
		return nil, err
	}
	d.noSync = true
	return d, nil
}

func (d *Dir) String() string {
	if d.noSync {
		return "file:" + d.root + "?sync=none"
	}
	return "file:" + d.root
}

func (d *Dir) segmentPath(id []byte) string {
	return filepath.Join(d.root, hex.EncodeToString(id)+segmentSuffix)
}

// Put appends blobs to this process's segment in one write, then syncs it:
// a message costs one commit however many payloads it carries, and the
// syncs of messages sent at once share one.
func (d *Dir) Put(ctx context.Context, blobs [][]byte) ([][]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	seg, where, err := d.append(blobs)
	if err != nil {
		return nil, err
	}
	defer seg.pending.Done()
	if !d.noSync {
		if err := seg.f.Sync(); err != nil {
			return nil, fmt.Errorf("sync payload segment %x: %w", seg.name, err)
		}
	}
	return where, nil
}

// append writes blobs at the end of the current segment and says where
// each landed; the caller syncs the segment and then calls pending.Done.
func (d *Dir) append(blobs [][]byte) (*segment, [][]byte, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.segment == nil || d.size > d.rotateAt {
		if err := d.startSegment(); err != nil {
			return nil, nil, err
		}
	}
	seg := d.segment
	var buf []byte
	where := make([][]byte, len(blobs))
	for i, b := range blobs {
		loc := append([]byte(nil), seg.name[:]...)
		loc = binary.AppendUvarint(loc, uint64(d.size)+uint64(len(buf)))
		where[i] = binary.AppendUvarint(loc, uint64(len(b)))
		buf = append(buf, b...)
	}
	n, err := seg.f.Write(buf)
	d.size += int64(n)
	if err != nil {
		// What was written may be half a blob: start afresh.
		d.segment = nil
		seg.retire()
		return nil, nil, fmt.Errorf("append to payload segment %x: %w", seg.name, err)
	}
	seg.pending.Add(1)
	return seg, where, nil
}

func (d *Dir) startSegment() error {
	seg := &segment{}
	if _, err := rand.Read(seg.name[:]); err != nil {
		return fmt.Errorf("name a payload segment: %w", err)
	}
	f, err := os.OpenFile(d.segmentPath(seg.name[:]), os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("create payload segment: %w", err)
	}
	if !d.noSync {
		// The segment's name must be durable before anything points into it.
		if err := syncDir(d.root); err != nil {
			f.Close()
			return err
		}
	}
	seg.f = f
	if d.segment != nil {
		d.segment.retire()
	}
	d.segment, d.size = seg, 0
	return nil
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync payload store: %w", err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync payload store: %w", err)
	}
	return nil
}

// Get reads the blob a Put placed at where. The caller checks its hash.
func (d *Dir) Get(ctx context.Context, where []byte) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(where) < segmentIDBytes {
		return nil, errors.New("a payload reference without a segment")
	}
	id, rest := where[:segmentIDBytes], where[segmentIDBytes:]
	offset, n := binary.Uvarint(rest)
	if n <= 0 {
		return nil, errors.New("a payload reference without an offset")
	}
	size, m := binary.Uvarint(rest[n:])
	if m <= 0 || n+m != len(rest) || size > MaxBlobBytes {
		return nil, errors.New("a payload reference without a valid length")
	}
	f, err := os.Open(d.segmentPath(id))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("payload segment %x in %s: %w", id, d, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("open payload segment %x: %w", id, err)
	}
	defer f.Close()
	blob := make([]byte, size)
	if _, err := f.ReadAt(blob, int64(offset)); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("payload at %x+%d in %s: %w", id, offset, d, ErrNotFound)
		}
		return nil, fmt.Errorf("read payload segment %x: %w", id, err)
	}
	return blob, nil
}

// Segments lists the store's segment files, for tests and operators.
func (d *Dir) Segments() ([]string, error) {
	entries, err := os.ReadDir(d.root)
	if err != nil {
		return nil, fmt.Errorf("list payload store: %w", err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), segmentSuffix) {
			out = append(out, filepath.Join(d.root, e.Name()))
		}
	}
	return out, nil
}
