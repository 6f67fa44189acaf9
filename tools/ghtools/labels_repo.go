package ghtools

import (
	"context"
	"strings"

	gogithub "github.com/google/go-github/v62/github"

	"github.com/agentrun/agentrun/api"
	ghapi "github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/tools"
)

// maxLabelPages bounds the repository's labels read before an add: 5,000
// labels is more than any repository uses.
const maxLabelPages = 50

// scopedLabels is add_labels as a tools.Scoped action: an agent's Allow list
// names labels it adds without asking.
type scopedLabels struct {
	tools.Action
}

// Allowed is true when every label of call is on allow. Arguments that do
// not decode are never allowed: Check refuses them anyway.
func (s scopedLabels) Allowed(call tools.Call, allow []string) bool {
	var a labelsArgs
	if err := labelsSchema.decode(call.Args, &a); err != nil || len(a.Labels) == 0 {
		return false
	}
	for _, l := range a.Labels {
		if !containsLabel(allow, l) {
			return false
		}
	}
	return true
}

// Scope implements tools.Scoped.
func (scopedLabels) Scope() string { return "labels" }

// sameLabel compares label names as GitHub does, without regard to case,
// but folding ASCII only: a look-alike ("ſafe-to-test", with a long s) is
// another name, never an allowed one.
func sameLabel(a, b string) bool {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if lowerASCII(a[i]) != lowerASCII(b[i]) {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func containsLabel(names []string, name string) bool {
	for _, n := range names {
		if sameLabel(n, name) {
			return true
		}
	}
	return false
}

// repoSpellings is the repository's own name for each label asked, or a
// tools.Rejected error naming those it lacks: nothing was written, and
// trying again cannot help.
func repoSpellings(ctx context.Context, gh *gogithub.Client, t api.Target, op string, asked []string) ([]string, error) {
	have, err := repoLabels(ctx, gh, t)
	if err != nil {
		return nil, unknownUnlessRateLimited(ghapi.ClassifyError(op+": read the repository's labels", err))
	}
	names := make([]string, 0, len(asked))
	var missing []string
	for _, l := range asked {
		i := -1
		for j, h := range have {
			if sameLabel(h, l) {
				i = j
				break
			}
		}
		if i < 0 {
			missing = append(missing, l)
			continue
		}
		names = append(names, have[i])
	}
	if len(missing) > 0 {
		return nil, tools.Rejected(op+": the repository has no label "+quoteAll(missing)+
			"; add_labels adds only labels the repository already has and never creates one, so nothing was added", nil)
	}
	return names, nil
}

// repoLabels is the names of the repository's labels, every page of them.
func repoLabels(ctx context.Context, gh *gogithub.Client, t api.Target) ([]string, error) {
	var names []string
	opts := &gogithub.ListOptions{PerPage: 100}
	for range maxLabelPages {
		page, resp, err := gh.Issues.ListLabels(ctx, t.Owner, t.Repo, opts)
		if err != nil {
			return nil, err
		}
		for _, l := range page {
			names = append(names, l.GetName())
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	return names, nil
}
