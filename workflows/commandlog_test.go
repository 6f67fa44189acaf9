package workflows

import (
	"context"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
)

// commandLog records what the Temporal UI shows of a run's commands (the
// summaries of its timers and activities) and when each activity attempt
// started on the testsuite's clock: the testsuite keeps no history to read
// them from.
type commandLog struct {
	mu       sync.Mutex
	timers   []loggedTimer
	activity []loggedActivity
	attempts []loggedAttempt
}

type loggedTimer struct {
	Duration time.Duration
	Summary  string
}

type loggedActivity struct {
	Name, Summary string
}

type loggedAttempt struct {
	Name    string
	Attempt int32
	At      time.Time
}

// logCommands installs a commandLog on the harness; call it before run.
func (h *harness) logCommands() *commandLog {
	l := &commandLog{}
	h.env.SetWorkerOptions(worker.Options{Interceptors: []interceptor.WorkerInterceptor{WrapOutbound(
		func(next interceptor.WorkflowOutboundInterceptor) interceptor.WorkflowOutboundInterceptor {
			return &commandLogOutbound{WorkflowOutboundInterceptorBase: interceptor.WorkflowOutboundInterceptorBase{Next: next}, log: l}
		})}})
	h.env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, args converter.EncodedValues) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.attempts = append(l.attempts, loggedAttempt{Name: toolActivityName(info.ActivityType.Name, args), Attempt: info.Attempt, At: h.env.Now()})
	})
	// The permission check and a read's first try run as local activities.
	h.env.SetOnLocalActivityStartedListener(func(info *activity.Info, _ context.Context, args []any) {
		name := info.ActivityType.Name
		if in, ok := args[0].(api.ToolInput); ok && len(args) == 1 {
			name += ":" + in.Tool
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		l.attempts = append(l.attempts, loggedAttempt{Name: name, Attempt: info.Attempt, At: h.env.Now()})
	})
	return l
}

// timerSummaries are the summaries of the timers the run started, in order.
func (l *commandLog) timerSummaries() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, t := range l.timers {
		out = append(out, t.Summary)
	}
	return out
}

// activitySummaries are the summaries of the activities named name.
func (l *commandLog) activitySummaries(name string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, a := range l.activity {
		if a.Name == name {
			out = append(out, a.Summary)
		}
	}
	return out
}

// gaps are the times between consecutive attempts of the activity named name.
func (l *commandLog) gaps(name string) []time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	var (
		out  []time.Duration
		prev *loggedAttempt
	)
	for i := range l.attempts {
		a := &l.attempts[i]
		if a.Name != name {
			continue
		}
		if prev != nil && a.Attempt > 1 {
			out = append(out, a.At.Sub(prev.At))
		}
		prev = a
	}
	return out
}

// starts are when each attempt of the activity named name started.
func (l *commandLog) starts(name string) []time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []time.Time
	for _, a := range l.attempts {
		if a.Name == name {
			out = append(out, a.At)
		}
	}
	return out
}

// attemptCount is how many attempts of the activity named name started.
func (l *commandLog) attemptCount(name string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, a := range l.attempts {
		if a.Name == name {
			n++
		}
	}
	return n
}

// WrapOutbound is a worker interceptor that wraps each workflow's outbound
// calls, the commands it makes, with wrap. It is exported for the package's
// external tests too.
func WrapOutbound(wrap func(interceptor.WorkflowOutboundInterceptor) interceptor.WorkflowOutboundInterceptor) interceptor.WorkerInterceptor {
	return &outboundWrapper{wrap: wrap}
}

type outboundWrapper struct {
	interceptor.WorkerInterceptorBase
	wrap func(interceptor.WorkflowOutboundInterceptor) interceptor.WorkflowOutboundInterceptor
}

func (o *outboundWrapper) InterceptWorkflow(_ workflow.Context, next interceptor.WorkflowInboundInterceptor) interceptor.WorkflowInboundInterceptor {
	return &outboundInbound{WorkflowInboundInterceptorBase: interceptor.WorkflowInboundInterceptorBase{Next: next}, wrap: o.wrap}
}

type outboundInbound struct {
	interceptor.WorkflowInboundInterceptorBase
	wrap func(interceptor.WorkflowOutboundInterceptor) interceptor.WorkflowOutboundInterceptor
}

func (i *outboundInbound) Init(outbound interceptor.WorkflowOutboundInterceptor) error {
	return i.Next.Init(i.wrap(outbound))
}

type commandLogOutbound struct {
	interceptor.WorkflowOutboundInterceptorBase
	log *commandLog
}

func (o *commandLogOutbound) NewTimerWithOptions(ctx workflow.Context, d time.Duration, options workflow.TimerOptions) workflow.Future {
	o.log.mu.Lock()
	o.log.timers = append(o.log.timers, loggedTimer{Duration: d, Summary: options.Summary})
	o.log.mu.Unlock()
	return o.Next.NewTimerWithOptions(ctx, d, options)
}

func (o *commandLogOutbound) ExecuteActivity(ctx workflow.Context, activityType string, args ...any) workflow.Future {
	name := activityType
	if in, ok := args[0].(api.ToolInput); ok && len(args) == 1 {
		name += ":" + in.Tool
	}
	o.log.mu.Lock()
	o.log.activity = append(o.log.activity, loggedActivity{Name: name, Summary: workflow.GetActivityOptions(ctx).Summary})
	o.log.mu.Unlock()
	return o.Next.ExecuteActivity(ctx, activityType, args...)
}

// toolActivityName names an attempt of ExecuteTool or ReconcileTool after its
// tool too ("ExecuteTool:create_issue_comment"), so that a test counts one
// tool's attempts.
func toolActivityName(name string, args converter.EncodedValues) string {
	if name != api.ActivityExecuteTool && name != api.ActivityReconcileTool {
		return name
	}
	var in api.ToolInput
	if args == nil || args.Get(&in) != nil {
		return name
	}
	return name + ":" + in.Tool
}
