package activities

import (
	"context"

	"go.temporal.io/sdk/activity"

	"github.com/agentrun/agentrun/api"
)

// MetricModelTokens counts the tokens of every model call, by kind (prompt or
// completion), through the worker's metrics handler (the SDK adds
// activity_type, namespace and task_queue, and appends _total).
const MetricModelTokens = "agentrun_model_tokens"

// countTokens counts a model call's usage. An attempt that fails counts
// nothing: the provider's usage is only known from its answer. Outside an
// activity (ModelNext called directly, as tests and library users may) there
// is no metrics handler, so nothing is counted.
func countTokens(ctx context.Context, u api.Usage) {
	if !activity.IsActivity(ctx) {
		return
	}
	m := activity.GetMetricsHandler(ctx)
	for kind, n := range map[string]int64{"prompt": u.PromptTokens, "completion": u.CompletionTokens} {
		if n > 0 {
			m.WithTags(map[string]string{"kind": kind}).Counter(MetricModelTokens).Inc(n)
		}
	}
}
