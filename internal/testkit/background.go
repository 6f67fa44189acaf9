package testkit

import (
	"context"
	"testing"
	"time"
)

// stopTimeout bounds how long a stopped program may take to return; only
// a hang reaches it.
const stopTimeout = 30 * time.Second

// Background is a program's run function running in the test's process,
// as its main runs it, until its context ends.
type Background struct {
	cancel  context.CancelFunc
	stopped chan error
}

// RunInBackground runs run with a context that ends on Stop or when the
// test ends.
func RunInBackground(t testing.TB, run func(ctx context.Context) error) *Background {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	b := &Background{cancel: cancel, stopped: make(chan error, 1)}
	go func() { b.stopped <- run(ctx) }()
	return b
}

// Stop ends run's context and fails the test unless run then returns nil:
// a program stops by itself, cleanly, once its context ends. what names
// the program in the failure.
func (b *Background) Stop(t testing.TB, what string) {
	t.Helper()
	b.cancel()
	select {
	case err := <-b.stopped:
		if err != nil {
			t.Fatalf("%s stopped with an error: %v", what, err)
		}
	case <-time.After(stopTimeout):
		t.Fatalf("%s did not stop after its context ended", what)
	}
}
