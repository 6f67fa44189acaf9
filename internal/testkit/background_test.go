package testkit

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// failureRecorder is a test whose failures are kept for the real test to
// read; Stop calls Fatalf last, so going on after it is safe.
type failureRecorder struct {
	testing.TB
	failure string
}

func (r *failureRecorder) Helper() {}

func (r *failureRecorder) Fatalf(format string, args ...any) {
	r.failure = fmt.Sprintf(format, args...)
}

func TestStopWaitsForTheProgramAndFailsOnlyWhenItStopsWithAnError(t *testing.T) {
	for name, tc := range map[string]struct {
		returns error
		failure string
	}{
		"clean":      {},
		"with error": {returns: errors.New("listener closed twice"), failure: "the program stopped with an error: listener closed twice"},
	} {
		t.Run(name, func(t *testing.T) {
			rec := &failureRecorder{TB: t}
			returned := false
			b := RunInBackground(rec, func(ctx context.Context) error {
				<-ctx.Done()
				returned = true
				return tc.returns
			})
			b.Stop(rec, "the program")
			require.True(t, returned, "Stop returns only once run has")
			require.Equal(t, tc.failure, rec.failure)
		})
	}
}
