package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/internal/agentworker"
	"github.com/agentrun/agentrun/internal/payloadstore"
	"github.com/agentrun/agentrun/internal/temporalclient"
	"github.com/agentrun/agentrun/model/offline"
	"github.com/agentrun/agentrun/runclient"
)

// startVariant is agentrun on a worker and client of its own, on the rig's
// server and sandbox: with payloads (a store) or with every payload inline
// (nil). Runs of the rig's agentrun and of its variants interleave, so that
// their ratio is what the option costs.
func (r *overheadRig) startVariant(tb testing.TB, label string, payloads *payloadstore.Offloader) agentRunContender {
	tb.Helper()
	c := r.raw
	if payloads != nil {
		c = r.server.Dial(tb, temporalclient.Config{Payloads: payloads})
	}
	queue := "overhead-" + label
	w := agentworker.NewWithActivities(c, queue, &activities.Activities{GitHub: r.ghClient, BotLogin: r.sandbox.BotLogin(), Model: offline.NewReviewer()})
	require.NoError(tb, w.Start())
	tb.Cleanup(w.Stop)
	return agentRunContender{rig: r, label: label, queue: queue, c: c, runs: runclient.New(c, runclient.Options{})}
}

// storeCost compares the rig's agentrun (its payload store unsynced, as
// beside a dev server) with the same runs on a synced store and with every
// payload inline.
type storeCost struct {
	runs                           int
	unsyncedMs, syncedMs, inlineMs float64
	inlineBytes, storedBytes       int
}

func (c storeCost) String() string {
	return fmt.Sprintf("Payload store, %d sequential approved runs of each, interleaved: %.1f ms a run with the store unsynced "+
		"(`?sync=none`, as beside this in-memory dev server), %.1f ms synced (`fsync` per message), %.1f ms with every payload inline "+
		"(%.2f× and %.2f× inline); history bytes %d with the store, %d inline",
		c.runs, c.unsyncedMs, c.syncedMs, c.inlineMs, c.unsyncedMs/c.inlineMs, c.syncedMs/c.inlineMs, c.storedBytes, c.inlineBytes)
}

func (r *overheadRig) measureStoreCost(ctx context.Context, tb testing.TB, runs int) storeCost {
	tb.Helper()
	synced, err := payloadstore.Parse("file:"+filepath.Join(tb.TempDir(), "synced"), "")
	require.NoError(tb, err)
	variants := []agentRunContender{r.agentRun(), r.startVariant(tb, "synced-store", synced), r.startVariant(tb, "inline", nil)}
	inlineShape := r.shapeOfOneRun(tb, variants[2])
	took := map[string][]time.Duration{}
	for range runs {
		for _, k := range variants {
			start := time.Now()
			_, err := r.runBatch(ctx, k, 1)
			require.NoError(tb, err)
			took[k.name()] = append(took[k.name()], time.Since(start))
		}
	}
	return storeCost{
		runs:       runs,
		unsyncedMs: meanMs(took[variants[0].name()]), syncedMs: meanMs(took[variants[1].name()]), inlineMs: meanMs(took[variants[2].name()]),
		inlineBytes: inlineShape.HistoryBytes, storedBytes: r.shape.HistoryBytes,
	}
}
