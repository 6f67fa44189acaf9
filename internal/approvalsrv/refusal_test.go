package approvalsrv

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/runclient"
)

type runsSpy struct {
	signals []api.RefusalSignal
	err     error
}

func (r *runsSpy) Refuse(_ context.Context, _ string, sig api.RefusalSignal) error {
	if r.err != nil {
		return r.err
	}
	r.signals = append(r.signals, sig)
	return nil
}

var (
	quiet = slog.New(slog.NewTextHandler(io.Discard, nil))
	now   = time.Date(2025, 3, 4, 12, 0, 0, 500, time.UTC)
)

func TestKeeperSignalsAtMostTwentyRefusalsPerRunAndKeepsTheLatestFifty(t *testing.T) {
	runs := &runsSpy{}
	k := NewKeeper(runs, func() time.Time { return now })

	for i := 1; i <= PerRun+5; i++ {
		k.Record(context.Background(), quiet, "run-1", Refusal{Who: fmt.Sprint("u", i), Reason: "no"}, true)
	}

	require.Len(t, runs.signals, signalsPerRun)
	kept := k.Since("run-1", 0)
	require.Len(t, kept, PerRun)
	require.Equal(t, "u6", kept[0].Who, "the oldest are dropped")
	require.Equal(t, int64(PerRun+5), k.Last("run-1"))
	require.True(t, kept[signalsPerRun-6].Recorded)
	require.False(t, kept[signalsPerRun-5].Recorded, "past the cap a refusal is only kept here")
	require.Equal(t, now.Truncate(time.Second), kept[0].At)
	require.Len(t, k.Since("run-1", int64(PerRun+3)), 2)
}

func TestKeeperRecordsInTheRunOnlyWhenAskedAndWhenTheRunTakesIt(t *testing.T) {
	runs := &runsSpy{}
	k := NewKeeper(runs, func() time.Time { return now })

	k.Record(context.Background(), quiet, "run-1", Refusal{Who: "anonymous"}, false)
	runs.err = fmt.Errorf("closed: %w", runclient.ErrRunNotFound)
	k.Record(context.Background(), quiet, "run-1", Refusal{Who: "late"}, true)

	require.Empty(t, runs.signals)
	for _, r := range k.Since("run-1", 0) {
		require.False(t, r.Recorded, r.Who)
	}
	require.Zero(t, k.Last("run-2"))
	require.Empty(t, k.Since("run-2", 0))
}

func TestLogForgetsTheOldestRunsPastItsBound(t *testing.T) {
	l := newRefusalLog(2, 2)
	for _, run := range []string{"run-1", "run-2", "run-3"} {
		l.add(run, Refusal{Who: run})
	}
	require.Empty(t, l.since("run-1", 0))
	require.Len(t, l.since("run-3", 0), 1)

	b := newRefusalSignalBudget(1, 1)
	require.True(t, b.take("run-1"))
	require.False(t, b.take("run-1"))
	require.True(t, b.take("run-2"))
	require.True(t, b.take("run-1"), "a forgotten run gets its allowance again")
}
