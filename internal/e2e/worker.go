package e2e

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
)

// workerReadyTimeout covers a worker's start and first polls on a busy machine.
const workerReadyTimeout = 60 * time.Second

// WorkerSpec configures one worker process.
type WorkerSpec struct {
	Name            string
	TemporalAddress string
	TaskQueue       string
	GitHubAPIURL    string
	// ModelEnv replaces the default MODEL_PROVIDER=offline, e.g. with the
	// OPENAI_* variables of an OpenAI-compatible provider.
	ModelEnv map[string]string
	// ClientEnv adds the rest of the Temporal connection to TemporalAddress:
	// TEMPORAL_TLS_* and AGENTRUN_PAYLOAD_KEYS, as a production cluster needs.
	ClientEnv map[string]string
}

// StartWorker starts a worker process and returns once Temporal sees it
// polling both the workflow and the activity side of its task queue.
func StartWorker(t testing.TB, binary string, c client.Client, spec WorkerSpec) *Process {
	t.Helper()
	env := map[string]string{
		"TEMPORAL_ADDRESS": spec.TemporalAddress,
		"AGENT_TASK_QUEUE": spec.TaskQueue,
		"GITHUB_API_URL":   spec.GitHubAPIURL,
		"GITHUB_TOKEN":     "e2e-token",
		"MODEL_PROVIDER":   "offline",
	}
	maps.Copy(env, spec.ClientEnv)
	maps.Copy(env, spec.ModelEnv)
	p := StartProcess(t, ProcessSpec{Name: spec.Name, Binary: binary, Env: env})
	WaitUntilPolling(t, c, spec.TaskQueue, p)
	return p
}

// WaitUntilPolling waits until Temporal lists p among the pollers of queue.
// The SDK's default worker identity starts with the process ID.
func WaitUntilPolling(t testing.TB, c client.Client, queue string, p *Process) {
	t.Helper()
	prefix := fmt.Sprintf("%d@", p.Pid())
	Eventually(t, workerReadyTimeout, p.Name()+" to poll "+queue, func() (struct{}, bool, string) {
		p.failIfExited(t)
		for _, kind := range []enumspb.TaskQueueType{enumspb.TASK_QUEUE_TYPE_WORKFLOW, enumspb.TASK_QUEUE_TYPE_ACTIVITY} {
			polling, seen := hasPoller(c, queue, kind, prefix)
			if !polling {
				return struct{}{}, false, seen
			}
		}
		return struct{}{}, true, ""
	})
}

func hasPoller(c client.Client, queue string, kind enumspb.TaskQueueType, identityPrefix string) (bool, string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := c.DescribeTaskQueue(ctx, queue, kind)
	if err != nil {
		return false, err.Error()
	}
	var identities []string
	for _, p := range resp.GetPollers() {
		if strings.HasPrefix(p.GetIdentity(), identityPrefix) {
			return true, ""
		}
		identities = append(identities, p.GetIdentity())
	}
	return false, fmt.Sprintf("%s pollers: %v", kind, identities)
}
