package activities

import (
	"context"
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"

	"github.com/google/go-github/v62/github"
)

// Activities is registered with the worker; its methods are the activities.
// The workflow refers to them through a nil *Activities, so every method must
// only use its fields at run time.
type Activities struct {
	GitHub *github.Client
	Model  Model
	// Conversations resolves the conversation references of ModelNext
	// inputs; nil on a worker whose runs always send the conversation inline.
	Conversations ConversationStore
}

// ModelNext asks the model for the next move.
func (a *Activities) ModelNext(ctx context.Context, in ModelInput) (Decision, error) {
	if a.Model == nil {
		return Decision{}, fmt.Errorf("no model configured")
	}
	conversation, err := a.resolveConversation(ctx, in)
	if err != nil {
		return Decision{}, err
	}
	d, err := a.Model.Next(ctx, conversation, in.Tools)
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) {
		// Temporal reads only the outermost error: wrapping would lose the
		// type, the non-retryable flag and the Retry-After delay.
		return Decision{}, appErr
	}
	if err != nil {
		return Decision{}, fmt.Errorf("model next: %w", err)
	}
	return d, nil
}
