package payloadstore

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// Two processes share a store: each appends to a segment of its own, and
// each reads what the other wrote.
func TestEachProcessAppendsToItsOwnSegmentAndReadsAnyOther(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	worker, err := OpenDir(root)
	require.NoError(t, err)
	approval, err := OpenDir(root)
	require.NoError(t, err)

	blobs := [][]byte{[]byte("the pull request's patches"), []byte("a model answer")}
	where, err := worker.Put(ctx, blobs)
	require.NoError(t, err)
	require.Len(t, where, 2)
	other, err := approval.Put(ctx, [][]byte{[]byte("a memo")})
	require.NoError(t, err)

	for i, w := range where {
		got, err := approval.Get(ctx, w)
		require.NoError(t, err)
		require.Equal(t, blobs[i], got)
	}
	got, err := worker.Get(ctx, other[0])
	require.NoError(t, err)
	require.Equal(t, []byte("a memo"), got)

	segments, err := worker.Segments()
	require.NoError(t, err)
	require.Len(t, segments, 2, "one segment per process, however many blobs")
	_, err = worker.Put(ctx, [][]byte{[]byte("a second message")})
	require.NoError(t, err)
	segments, err = worker.Segments()
	require.NoError(t, err)
	require.Len(t, segments, 2, "a second message goes to the same segment")
	for _, s := range segments {
		fi, err := os.Stat(s)
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "only the programs' user reads the runs' text")
	}
}

// Messages sent at once append at once, and a full segment gives way to a
// new one while syncs on it are still in flight: every blob reads back.
func TestConcurrentPutsAcrossSegmentsAllReadBack(t *testing.T) {
	ctx := context.Background()
	d, err := OpenDir(t.TempDir())
	require.NoError(t, err)
	d.rotateAt = 64
	type put struct {
		blob  []byte
		where []byte
	}
	puts := make(chan put, 200)
	var wg sync.WaitGroup
	for g := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				blob := []byte(fmt.Sprintf("message %d of sender %d, with a payload", i, g))
				where, err := d.Put(ctx, [][]byte{blob})
				if err != nil {
					t.Error(err)
					return
				}
				puts <- put{blob, where[0]}
			}
		}()
	}
	wg.Wait()
	close(puts)
	n := 0
	for p := range puts {
		got, err := d.Get(ctx, p.where)
		require.NoError(t, err)
		require.Equal(t, p.blob, got)
		n++
	}
	require.Equal(t, 200, n)
	segments, err := d.Segments()
	require.NoError(t, err)
	require.Greater(t, len(segments), 10, "the store rotated its segments")
}

// A segment takes messages until it is past its size, then the next message
// starts a new one.
func TestASegmentGivesWayOnlyOnceItIsPastItsSize(t *testing.T) {
	ctx := context.Background()
	d, err := OpenDir(t.TempDir())
	require.NoError(t, err)
	first := []byte("sixteen bytes!!!")
	d.rotateAt = int64(len(first))
	count := func() int {
		segments, err := d.Segments()
		require.NoError(t, err)
		return len(segments)
	}
	for i, want := range []int{1, 1, 2} {
		_, err := d.Put(ctx, [][]byte{first})
		require.NoError(t, err)
		require.Equal(t, want, count(), "after message %d", i+1)
	}
}

// A reference names a place; one that points past a segment's end, into a
// segment that is not there, or that does not parse is an error, never a
// read of something else.
func TestAPlaceTheStoreDoesNotHaveIsAnError(t *testing.T) {
	ctx := context.Background()
	d, err := OpenDir(t.TempDir())
	require.NoError(t, err)
	where, err := d.Put(ctx, [][]byte{[]byte("twelve bytes")})
	require.NoError(t, err)
	w := where[0]

	past := append(append([]byte(nil), w[:segmentIDBytes]...), 100, 12)
	_, err = d.Get(ctx, past)
	require.ErrorIs(t, err, ErrNotFound)

	missing := append([]byte("\x00\x01\x02\x03\x04\x05\x06\x07"), w[segmentIDBytes:]...)
	_, err = d.Get(ctx, missing)
	require.ErrorIs(t, err, ErrNotFound)

	for _, bad := range []struct {
		where []byte
		want  string
	}{
		{w[:4], "without a segment"},
		{w[:segmentIDBytes], "without an offset"},
		{append(append([]byte(nil), w[:segmentIDBytes]...), 0), "without a valid length"},
		{append(append([]byte(nil), w...), 1), "without a valid length"},
	} {
		_, err = d.Get(ctx, bad.where)
		require.ErrorContains(t, err, bad.want, "%x", bad.where)
	}
	huge := binary.AppendUvarint(append(append([]byte(nil), w[:segmentIDBytes]...), 0), MaxBlobBytes+1)
	_, err = d.Get(ctx, huge)
	require.ErrorContains(t, err, "valid length", "a forged length is refused before anything is allocated")
	largest := binary.AppendUvarint(append(append([]byte(nil), w[:segmentIDBytes]...), 0), MaxBlobBytes)
	_, err = d.Get(ctx, largest)
	require.ErrorIs(t, err, ErrNotFound, "the largest length is read, and the segment is shorter")
}

func TestParseRefusesWhatItCannotUseNamingTheVariable(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ store, threshold, want string }{
		{"", "512", "AGENTRUN_PAYLOAD_STORE_THRESHOLD is set but AGENTRUN_PAYLOAD_STORE is not"},
		{"s3://bucket", "", `AGENTRUN_PAYLOAD_STORE: "s3://bucket" is not file:/absolute/path[?sync=none]`},
		{"file:" + dir + "?sync=off", "", `AGENTRUN_PAYLOAD_STORE: "file:` + dir + `?sync=off": the only option is ?sync=none`},
		{"file:relative/dir", "", `AGENTRUN_PAYLOAD_STORE: "relative/dir" is not an absolute path`},
		{"file:" + dir, "lots", `AGENTRUN_PAYLOAD_STORE_THRESHOLD: "lots" is not a number of bytes`},
		{"file:" + dir, "64", "AGENTRUN_PAYLOAD_STORE_THRESHOLD: threshold 64 bytes is under the minimum of 128"},
	} {
		_, err := Parse(c.store, c.threshold)
		require.EqualError(t, err, c.want, "%q %q", c.store, c.threshold)
	}
	off, err := Parse("", "")
	require.NoError(t, err)
	require.Nil(t, off, "no store: every payload stays inline")

	off, err = Parse("file:"+filepath.Join(dir, "payloads"), "")
	require.NoError(t, err)
	require.Equal(t, DefaultThreshold, off.Threshold())
	require.True(t, strings.HasSuffix(off.Store().String(), "/payloads"))
	require.False(t, off.Store().(*Dir).noSync, "writes are synced unless the value says otherwise")
	fi, err := os.Stat(filepath.Join(dir, "payloads"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), fi.Mode().Perm(), "only the programs' user reads the runs' text")

	off, err = Parse("file:"+filepath.Join(dir, "payloads")+"?sync=none", "300")
	require.NoError(t, err)
	require.True(t, off.Store().(*Dir).noSync)
	require.Equal(t, 300, off.Threshold())
}
