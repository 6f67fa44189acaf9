package activities

import (
	"context"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/agentrun/agentrun/api"
)

// ModelWritingInterval is how often, at most, ModelNext heartbeats the text
// a streaming model has written so far. The worker's heartbeat throttle
// must be no longer (agentworker sets it), or the SDK holds the details
// back for most of the heartbeat timeout.
const ModelWritingInterval = 500 * time.Millisecond

// streamingModel is a model that reports its text as it writes it
// (model/openai). The offline models write nothing, so they are not.
type streamingModel interface {
	Stream(ctx context.Context, conversation []api.Message, tools []api.ToolSpec, writing func(text string)) (api.ModelDecision, error)
}

// atOnceModel is a model that answers in-process at once, with nothing to
// stream (model/offline): a call to it holds its workflow task for no
// longer than a read does, so it may be a local activity. A model that
// may take long without streaming is not one: a local call holds its run's
// workflow task, and queries wait for the task's end.
type atOnceModel interface {
	AnswersAtOnce() bool
}

// modelHeartbeat heartbeats ModelNext: every interval to say it is alive,
// and within writingEvery of new text, with the text so far as the
// heartbeat's details. Details live on the pending activity only: people
// read them through Describe, and the run's history never holds them.
type modelHeartbeat struct {
	mu      sync.Mutex
	text    string
	changed bool
	done    chan struct{}
}

// heartbeatWhile starts heartbeating ctx's activity until stop is called;
// writing is the stream's callback.
func heartbeatWhile(ctx context.Context, interval, writingEvery time.Duration) (hb *modelHeartbeat, stop func()) {
	hb = &modelHeartbeat{done: make(chan struct{})}
	// A local activity's heartbeats go nowhere: the workflow task that runs
	// it is what tells the server its worker lives.
	if !activity.IsActivity(ctx) || activity.GetInfo(ctx).IsLocalActivity {
		return hb, func() {}
	}
	go hb.run(ctx, interval, min(interval, writingEvery))
	return hb, func() { close(hb.done) }
}

// writing keeps the tail of the text so far; it never blocks on Temporal.
func (hb *modelHeartbeat) writing(text string) {
	tail := api.TailUTF8(text, api.MaxWritingBytes)
	hb.mu.Lock()
	defer hb.mu.Unlock()
	if tail != hb.text {
		hb.text, hb.changed = tail, true
	}
}

func (hb *modelHeartbeat) run(ctx context.Context, interval, tick time.Duration) {
	ticker := time.NewTicker(tick)
	defer ticker.Stop()
	last := time.Now()
	for {
		select {
		case <-hb.done:
			return
		case <-ctx.Done():
			return
		case now := <-ticker.C:
			text, changed := hb.take()
			if !changed && now.Sub(last) < interval {
				continue
			}
			last = now
			if text == "" {
				activity.RecordHeartbeat(ctx)
				continue
			}
			// Every heartbeat carries the text: one without details would
			// clear what the run page shows.
			activity.RecordHeartbeat(ctx, api.ModelProgress{Writing: text})
		}
	}
}

func (hb *modelHeartbeat) take() (string, bool) {
	hb.mu.Lock()
	defer hb.mu.Unlock()
	changed := hb.changed
	hb.changed = false
	return hb.text, changed
}
