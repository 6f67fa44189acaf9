package ghsandbox

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/require"
)

// writeEndpoint is one of the write endpoints added beside comments, driven
// through go-github, with what it leaves behind.
type writeEndpoint struct {
	op      string
	write   func(ctx context.Context, gh *github.Client) error
	created func(sb *Server) int
}

var writeEndpoints = []writeEndpoint{
	{
		op: OpCreateReview,
		write: func(ctx context.Context, gh *github.Client) error {
			_, _, err := gh.PullRequests.CreateReview(ctx, "acme", "widgets", 1, &github.PullRequestReviewRequest{
				Body: github.String("two findings"), Event: github.String("REQUEST_CHANGES"),
				Comments: []*github.DraftReviewComment{{Path: github.String("config/aws.go"), Line: github.Int(8), Side: github.String("RIGHT"), Body: github.String("a secret")}},
			})
			return err
		},
		created: func(sb *Server) int { return len(sb.Reviews("acme", "widgets", 1)) },
	},
	{
		op: OpAddLabels,
		write: func(ctx context.Context, gh *github.Client) error {
			_, _, err := gh.Issues.AddLabelsToIssue(ctx, "acme", "widgets", 1, []string{"security"})
			return err
		},
		created: func(sb *Server) int { return len(sb.Labels("acme", "widgets", 1)) },
	},
	{
		op: OpCreateIssue,
		write: func(ctx context.Context, gh *github.Client) error {
			_, _, err := gh.Issues.Create(ctx, "acme", "widgets", &github.IssueRequest{Title: github.String("Leaked key in config/aws.go")})
			return err
		},
		created: func(sb *Server) int { return len(sb.Issues("acme", "widgets")) },
	},
}

func TestDroppedResponseOfEveryWriteActsOnceAndTheClientSeesAnError(t *testing.T) {
	for _, ep := range writeEndpoints {
		t.Run(ep.op, func(t *testing.T) {
			sb, gh := sandboxAndClient(t)
			require.NoError(t, sb.AddFault(Fault{Op: ep.op, Mode: ModeDropResponse}))

			err := ep.write(context.Background(), gh)

			require.Error(t, err)
			require.Equal(t, 1, ep.created(sb), "the effect happened exactly once")
			log := sb.Requests()
			require.Len(t, log, 1, "go-github does not resend a POST")
			require.Equal(t, ModeDropResponse, log[0].Fault)
			require.Empty(t, sb.Faults())
		})
	}
}

func TestStatusFaultOnEveryWriteCreatesNothing(t *testing.T) {
	for _, ep := range writeEndpoints {
		t.Run(ep.op, func(t *testing.T) {
			sb, gh := sandboxAndClient(t)
			require.NoError(t, sb.AddFault(Fault{Op: ep.op, Mode: ModeStatus, Status: http.StatusBadGateway}))

			err := ep.write(context.Background(), gh)

			var resp *github.ErrorResponse
			require.True(t, errors.As(err, &resp), "got %T: %v", err, err)
			require.Equal(t, http.StatusBadGateway, resp.Response.StatusCode)
			require.Zero(t, ep.created(sb))

			require.NoError(t, ep.write(context.Background(), gh), "the fault is spent")
			require.Equal(t, 1, ep.created(sb))
		})
	}
}

func TestDelayedWriteActsBeforeItsAnswerSoAClientThatGivesUpStillCausedIt(t *testing.T) {
	for _, ep := range writeEndpoints {
		t.Run(ep.op, func(t *testing.T) {
			sb, gh := sandboxAndClient(t)
			require.NoError(t, sb.AddFault(Fault{Op: ep.op, Mode: ModeDelay, DelayMs: int(time.Hour / time.Millisecond)}))
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- ep.write(ctx, gh) }()

			require.Eventually(t, func() bool { return ep.created(sb) == 1 }, 10*time.Second, 5*time.Millisecond)
			cancel()

			require.ErrorIs(t, <-done, context.Canceled)
			require.Equal(t, 1, ep.created(sb))
		})
	}
}

func TestShortDelayOnEveryWriteAnswersSuccessOnce(t *testing.T) {
	for _, ep := range writeEndpoints {
		t.Run(ep.op, func(t *testing.T) {
			sb, gh := sandboxAndClient(t)
			require.NoError(t, sb.AddFault(Fault{Op: ep.op, Mode: ModeDelay, DelayMs: 20}))

			require.NoError(t, ep.write(context.Background(), gh))

			require.Equal(t, 1, ep.created(sb))
			require.Equal(t, ModeDelay, sb.Requests()[0].Fault)
		})
	}
}

// A fault names its endpoint by op; one for another endpoint, even another
// write on the same pull request, leaves this one alone.
func TestFaultForOneWriteLeavesTheOthersAlone(t *testing.T) {
	sb, gh := sandboxAndClient(t)
	require.NoError(t, sb.AddFault(Fault{Op: OpCreateComment, Mode: ModeStatus, Status: 500, Count: 10}))

	for _, ep := range writeEndpoints {
		require.NoError(t, ep.write(context.Background(), gh), ep.op)
		require.Equal(t, 1, ep.created(sb), ep.op)
	}
	require.Equal(t, 10, sb.Faults()[0].Count)
}
