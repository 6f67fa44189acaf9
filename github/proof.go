package github

import (
	"context"
	"errors"
	"fmt"

	gogithub "github.com/google/go-github/v62/github"

	"github.com/agentrun/agentrun/api"
)

// ErrProofSearchIncomplete is a bounded lookup's answer when it read its last
// allowed page without finding the proof and GitHub still had more: the
// proof may be further on, so absence is not proven and nobody may act as if
// nothing was created.
var ErrProofSearchIncomplete = errors.New("stopped looking for the operation's proof before GitHub's last page")

// listPage reads one page (1-based) of a listing.
type listPage[T any] func(ctx context.Context, page int) ([]T, *gogithub.Response, error)

// findProof reads a listing page by page, at most maxPages of them, and
// returns the first item judge says proves the operation, with the
// look-alikes seen on the way (at most api.MaxIgnoredComments). A listing
// that ends first proves there is none (found false, nil error); one that
// does not end within maxPages is ErrProofSearchIncomplete.
func findProof[T any](ctx context.Context, what string, maxPages int, list listPage[T], judge func(T) (bool, *api.IgnoredComment)) (found T, ok bool, ignored []api.IgnoredComment, err error) {
	page := 1
	for read := 1; ; read++ {
		items, resp, err := list(ctx, page)
		if err != nil {
			return found, false, ignored, fmt.Errorf("list %s (page %d): %w", what, page, err)
		}
		for _, item := range items {
			proves, lookAlike := judge(item)
			if proves {
				return item, true, ignored, nil
			}
			if lookAlike != nil && len(ignored) < api.MaxIgnoredComments {
				ignored = append(ignored, *lookAlike)
			}
		}
		if resp.NextPage == 0 {
			return found, false, ignored, nil
		}
		if read == maxPages {
			return found, false, ignored, fmt.Errorf("list %s: %d pages read: %w", what, read, ErrProofSearchIncomplete)
		}
		page = resp.NextPage
	}
}
