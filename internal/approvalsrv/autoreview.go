package approvalsrv

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/runclient"
)

// AutoReview is AGENTRUN_AUTO_REVIEW: the repositories whose pull requests
// start their own run. Empty (unset), pull_request deliveries change
// nothing.
type AutoReview []AutoReviewEntry

// AutoReviewEntry is one repository's rule (or every repository's, "*").
type AutoReviewEntry struct {
	// Repo is "owner/name", or "*" for every repository.
	Repo string
	// Agent runs the review; empty is api.DefaultAgent.
	Agent string
	// Mode is ModeAsk (the review waits for a writer's approval, as the
	// agent's gate asks) or ModePost (it posts at once).
	Mode string
	// Drafts reviews draft pull requests too; without it a draft waits
	// until it is ready for review.
	Drafts bool
}

// Auto-review modes.
const (
	// ModeAsk: the review is proposed and waits for a writer (the default).
	ModeAsk = "ask"
	// ModePost: the review posts at once. The agent's gate is lifted for
	// each run the entry starts, decided at its start and recorded in its
	// input (api.RunInput.PostsWithoutAsking).
	ModePost = "post"
)

// optionDrafts is the entry option that reviews drafts too.
const optionDrafts = "drafts"

// ParseAutoReview reads entries separated by commas or spaces, each
// OWNER/NAME[=AGENT][:OPTION...] or *[=AGENT][:OPTION...], OPTION being ask,
// post or drafts: "acme/widgets, acme/gadgets=triage:drafts, *".
func ParseAutoReview(v string) (AutoReview, error) {
	var out AutoReview
	seen := map[string]bool{}
	for _, raw := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' }) {
		e, err := parseAutoReviewEntry(raw)
		if err != nil {
			return nil, fmt.Errorf("entry %q: %w", clip(raw, maxEcho), err)
		}
		key := strings.ToLower(e.Repo)
		if seen[key] {
			return nil, fmt.Errorf("entry %q: %s is listed twice", clip(raw, maxEcho), e.Repo)
		}
		seen[key] = true
		out = append(out, e)
	}
	return out, nil
}

func parseAutoReviewEntry(raw string) (AutoReviewEntry, error) {
	parts := strings.Split(raw, ":")
	target, agent, _ := strings.Cut(parts[0], "=")
	e := AutoReviewEntry{Repo: target, Agent: agent, Mode: ModeAsk}
	if target != "*" && !runclient.ValidRepo(target) {
		return e, fmt.Errorf("want OWNER/NAME (or *), optionally =AGENT and :ask, :post or :drafts")
	}
	if strings.Contains(parts[0], "=") && !api.ValidAgentName(agent) {
		return e, fmt.Errorf("agent: %w", runclient.ErrBadAgent)
	}
	modes := 0
	for _, opt := range parts[1:] {
		switch strings.ToLower(opt) {
		case ModeAsk:
			e.Mode, modes = ModeAsk, modes+1
		case ModePost:
			e.Mode, modes = ModePost, modes+1
		case optionDrafts:
			e.Drafts = true
		default:
			return e, fmt.Errorf("unknown option %q: want ask, post or drafts", clip(opt, maxEcho))
		}
	}
	if modes > 1 {
		return e, fmt.Errorf("ask and post: choose one (ask, the default, waits for a writer; post posts without asking)")
	}
	return e, nil
}

// For is the entry that applies to owner/name: its own, else "*"'s.
func (a AutoReview) For(repo string) (AutoReviewEntry, bool) {
	var star *AutoReviewEntry
	for i, e := range a {
		if strings.EqualFold(e.Repo, repo) {
			return e, true
		}
		if e.Repo == "*" {
			star = &a[i]
		}
	}
	if star == nil {
		return AutoReviewEntry{}, false
	}
	e := *star
	e.Repo = repo
	return e, true
}

// AgentName is the agent the entry runs.
func (e AutoReviewEntry) AgentName() string { return cmp.Or(e.Agent, api.DefaultAgent) }

// String is the entry as AGENTRUN_AUTO_REVIEW writes it, for logs and
// answers.
func (e AutoReviewEntry) String() string {
	s := e.Repo + "=" + e.AgentName() + ":" + e.Mode
	if e.Drafts {
		s += ":" + optionDrafts
	}
	return s
}

// PullReviewRunID is the run of agent's review of a pull request at head:
// one per repository, pull request, head commit and agent, so that a
// redelivery, two deliveries at once, or a /agentrun review of a head
// already under review find the run instead of starting another.
func PullReviewRunID(repo string, number int, head, agent string) string {
	return runclient.KeyedRunID("github-pull-request-review",
		fmt.Sprintf("repo=%s\npr=%d\nhead=%s\nagent=%s", strings.ToLower(repo), number, strings.ToLower(head), agent))
}

// PostsWithoutAsking is what a run the entry starts records in its input:
// the rule that lifts the agent's gate, or "" when its reviews ask.
func (e AutoReviewEntry) PostsWithoutAsking() string {
	if e.Mode != ModePost {
		return ""
	}
	return "AGENTRUN_AUTO_REVIEW " + e.String()
}
