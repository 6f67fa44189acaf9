package activities

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/model"
	"github.com/agentrun/agentrun/tools"
)

// Activities is registered with the worker; its methods are the activities.
// The workflow refers to them through a nil *Activities, so every method must
// only use its fields at run time.
type Activities struct {
	// GitHub is the worker's GitHub access, the one the GitHub tools of
	// Tools were built over; nil on a worker without GitHub, whose
	// permission checks say so.
	GitHub *github.Access
	Model  model.Model
	// Conversations resolves the conversation references of ModelNext
	// inputs; nil on a worker whose runs always send the conversation inline.
	Conversations ConversationStore
	// Runs reads earlier runs for LoadFollowUp (activities/followup.go);
	// nil on a worker that serves no follow-ups.
	Runs RunQuerier
	// Tools are the registered tools ExecuteTool and ReconcileTool run; the
	// workflow of the same worker checks calls against the same registry.
	Tools *tools.Registry
	// HeartbeatInterval overrides api.ModelHeartbeatInterval (tests use a short one).
	HeartbeatInterval time.Duration
	// WritingInterval overrides ModelWritingInterval.
	WritingInterval time.Duration
	// Callbacks delivers runs' results (DeliverResult, activities/callback.go).
	Callbacks Callbacks
	// RunPageURL is the approval server's address as people reach it;
	// a run's check run links to the run's page there (SyncCheckRun).
	RunPageURL string
}

// ModelNext asks the model for the next move.
func (a *Activities) ModelNext(ctx context.Context, in api.ModelInput) (api.ModelDecision, error) {
	if a.Model == nil {
		return api.ModelDecision{}, fmt.Errorf("no model configured")
	}
	conversation, err := a.resolveConversation(ctx, in)
	if err != nil {
		return api.ModelDecision{}, err
	}
	offered, err := a.offeredTools(in)
	if err != nil {
		return api.ModelDecision{}, err
	}
	interval := a.HeartbeatInterval
	if interval <= 0 {
		interval = api.ModelHeartbeatInterval
	}
	hb, stop := heartbeatWhile(ctx, interval, cmp.Or(a.WritingInterval, ModelWritingInterval))
	var d api.ModelDecision
	// The answer describes the model that gave it, whatever a.Model is by
	// the time it returns.
	m := a.Model
	streaming, streams := m.(streamingModel)
	atOnce, isAtOnce := m.(atOnceModel)
	if streams {
		d, err = streaming.Stream(ctx, conversation, offered, hb.writing)
	} else {
		d, err = m.Next(ctx, conversation, offered)
	}
	stop()
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) {
		// Temporal reads only the outermost error: wrapping would lose the
		// type, the non-retryable flag and the Retry-After delay.
		return api.ModelDecision{}, appErr
	}
	if err != nil {
		return api.ModelDecision{}, fmt.Errorf("model next: %w", err)
	}
	countTokens(ctx, d.Usage)
	// Only a model with nothing to show as it writes, which answers at
	// once, may run where its run's workflow task runs: a local activity
	// has no heartbeat details and holds the task while it runs.
	d.Local = !streams && isAtOnce && atOnce.AnswersAtOnce()
	return d, nil
}
