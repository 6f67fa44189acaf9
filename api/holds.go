package api

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The stop switch. An operator holds an agent, a target or a tool; every
// run it matches stops before its next side effect and goes on when the
// hold is released. The holds live in one long-lived workflow per
// task queue (HoldsWorkflowID), so they survive restarts of the workers and
// of the server, and its query is their audit (who, when, why).

const (
	// HoldsWorkflowName is the registered name of the holds workflow.
	HoldsWorkflowName = "AgentRunHolds"
	// UpdateHold takes a HoldSignal, places the hold and answers a
	// HoldAnswer: runclient.Hold sends it with update-with-start, so the
	// operator hears whether the hold was placed.
	UpdateHold = "place-hold"
	// UpdateRelease takes a HoldSignal, releases its sender's hold on its
	// selector (every hold on it with All) and answers a HoldAnswer.
	UpdateRelease = "release-hold"
	// SignalHold and SignalRelease are what clients before UpdateHold sent:
	// the holds workflow still applies them, answering nobody.
	SignalHold    = "hold"
	SignalRelease = "release"
	// SignalHoldWaiter carries a HoldCheck: a held run asks to be told
	// when nothing holds it any more.
	SignalHoldWaiter = "hold-waiter"
	// SignalHoldsReleased is sent to a run that waits on a hold once no
	// hold matches it; it carries nothing, and the run looks again.
	SignalHoldsReleased = "holds-released"
	// QueryHolds returns the HoldsView.
	QueryHolds = "holds"
	// ActivityCheckHolds takes a HoldCheck and returns a HoldMatch.
	ActivityCheckHolds = "CheckHolds"
)

// HoldsWorkflowID is the well-known ID of the holds workflow of the workers
// that poll taskQueue: a hold or release starts it there with
// signal-with-start, and those workers' runs ask it. One per task queue,
// not per namespace: a namespace may serve several deployments (and
// tests) on their own queues, and a hold stops the runs of one.
func HoldsWorkflowID(taskQueue string) string { return "agentrun-holds:" + taskQueue }

// Bounds of a hold's words; they reach every matching run's page.
const (
	MaxHoldReasonBytes   = 500
	MaxHoldSelectorBytes = 200
	// MaxHoldLog bounds the audit log the holds workflow keeps and carries
	// across its continue-as-new: the newest changes.
	MaxHoldLog = 200
	// MaxHolds bounds the active holds.
	MaxHolds = 100
)

// HoldSelector names what a hold stops: exactly one of an agent (by name),
// a target and a tool (by name). A target is a run's target or one its
// action touches, as the run shows it: "acme/widgets#12", a whole
// repository "acme/widgets", or a target of another kind in its own words
// ("billing queue", "#releases").
type HoldSelector struct {
	Agent  string `json:"agent,omitempty"`
	Target string `json:"target,omitempty"`
	Tool   string `json:"tool,omitempty"`
}

// Validate refuses a selector that names not exactly one thing, or one
// that no run could ever match.
func (s HoldSelector) Validate() error {
	_, err := s.Canonical()
	return err
}

// Canonical is the selector in the one form holds are kept and compared
// in: trimmed, and an agent's, a tool's and a GitHub repository's name in
// lower case (GitHub's names ignore case). It refuses a selector that
// names not exactly one thing, or one no run could ever carry: an agent or
// tool name outside their rules, a pull request named by its URL or
// without its number.
func (s HoldSelector) Canonical() (HoldSelector, error) {
	set := 0
	for _, v := range []string{s.Agent, s.Target, s.Tool} {
		if strings.TrimSpace(v) != "" {
			set++
		}
		if len(v) > MaxHoldSelectorBytes {
			return HoldSelector{}, fmt.Errorf("a hold's selector is %d bytes; at most %d", len(v), MaxHoldSelectorBytes)
		}
	}
	if set != 1 {
		return HoldSelector{}, errors.New("a hold names exactly one of an agent, a target or a tool")
	}
	c := s.matchForm()
	switch {
	case c.Agent != "" && !ValidAgentName(c.Agent):
		return HoldSelector{}, fmt.Errorf("agent %q: an agent's name is lower case letters, digits and '-', starting with a letter", strings.TrimSpace(s.Agent))
	case c.Tool != "" && !ValidToolName(c.Tool):
		return HoldSelector{}, fmt.Errorf("tool %q: a tool's name is lower case letters, digits and '_', starting with a letter", strings.TrimSpace(s.Tool))
	case c.Target != "":
		if err := checkHoldTarget(c.Target); err != nil {
			return HoldSelector{}, fmt.Errorf("target %q: %w", c.Target, err)
		}
	}
	return c, nil
}

// matchForm is the selector trimmed and in the case it is compared in,
// unchecked: the form Matches compares, and Canonical's once checked.
func (s HoldSelector) matchForm() HoldSelector {
	c := HoldSelector{
		Agent:  strings.ToLower(strings.TrimSpace(s.Agent)),
		Target: strings.TrimSpace(s.Target),
		Tool:   strings.ToLower(strings.TrimSpace(s.Tool)),
	}
	if repo, number, ok := gitHubTarget(c.Target); ok {
		c.Target = strings.ToLower(repo) + number
	}
	return c
}

// checkHoldTarget refuses a target no run carries: runs name a pull
// request owner/name#12 and never by its URL. Any other text may be a
// target of another kind, in its own words, and is taken as it is.
func checkHoldTarget(target string) error {
	host := strings.TrimPrefix(strings.TrimPrefix(strings.ToLower(target), "https://"), "http://")
	parts := strings.Split(target, "/")
	if strings.HasPrefix(strings.TrimPrefix(host, "www."), "github.com/") ||
		len(parts) >= 3 && isGitHubRepo(parts[0]+"/"+parts[1]) && slices.Contains([]string{"pull", "pulls", "issues"}, parts[2]) {
		return errors.New("name a pull request as owner/name#12 and a repository as owner/name, as runs show them, not by URL")
	}
	if repo, number, ok := strings.Cut(target, "#"); ok && isGitHubRepo(repo) && !isPullNumber(number) {
		return fmt.Errorf("after '#' comes a pull request's number, as in %s#12", repo)
	}
	return nil
}

// gitHubTarget splits a target that names a GitHub repository, or a pull
// request in it, into the repository and "#N" ("" for a repository).
func gitHubTarget(target string) (repo, number string, ok bool) {
	repo, n, hash := strings.Cut(target, "#")
	if !isGitHubRepo(repo) {
		return "", "", false
	}
	if hash {
		return repo, "#" + n, true
	}
	return repo, "", true
}

// isGitHubRepo tells whether s is owner/name with GitHub's alphabets.
func isGitHubRepo(s string) bool {
	owner, name, ok := strings.Cut(s, "/")
	return ok && owner != "" && name != "" &&
		strings.Trim(owner, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-") == "" &&
		strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") == ""
}

// isPullNumber tells whether s is a pull request's number as runs show it.
func isPullNumber(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n > 0 && strconv.Itoa(n) == s
}

// Repository is the GitHub repository ("owner/name") a hold on a target
// names, alone or through one of its pull requests; "" for a hold on an
// agent, a tool or a target of another kind.
func (s HoldSelector) Repository() string {
	repo, _, ok := gitHubTarget(s.matchForm().Target)
	if !ok {
		return ""
	}
	return repo
}

// String says the selector as a person reads it: "agent pr-review".
func (s HoldSelector) String() string {
	switch {
	case s.Agent != "":
		return "agent " + s.Agent
	case s.Target != "":
		return "target " + s.Target
	default:
		return "tool " + s.Tool
	}
}

// Matches tells whether the selector holds an action of tool, by a run of
// agent, on any of targets. Case and surrounding spaces do not count in an
// agent's or a tool's name, nor in a GitHub repository's. A repository
// holds every pull request in it and what an action does to the
// repository itself ("acme/widgets (new issue)"); a target of another
// kind matches as it is written.
func (s HoldSelector) Matches(c HoldCheck) bool {
	s = s.matchForm()
	switch {
	case s.Agent != "":
		return s.Agent == strings.ToLower(c.Agent)
	case s.Tool != "":
		return s.Tool == strings.ToLower(c.Tool)
	case s.Target != "":
		return slices.ContainsFunc(c.Targets, func(t string) bool { return holdsTarget(s.Target, t) })
	}
	return false
}

// holdsTarget tells whether a hold on sel (in matchForm) holds target.
func holdsTarget(sel, target string) bool {
	repo, number, ok := gitHubTarget(sel)
	if !ok {
		return sel == target
	}
	// The repository a target names runs up to its "#N" or its note.
	end := strings.IndexAny(target, "# ")
	if end < 0 {
		end = len(target)
	}
	if !strings.EqualFold(target[:end], repo) {
		return false
	}
	return number == "" || target[end:] == number
}

// HoldSignal places or releases a hold. By and Reason are required: they
// are the audit. A hold is its sender's: each operator's hold on a
// selector is its own, and a release lifts the sender's alone unless All
// says it lifts every hold on the selector, whoever placed it.
type HoldSignal struct {
	Selector HoldSelector `json:"selector"`
	By       string       `json:"by"`
	Reason   string       `json:"reason"`
	Channel  string       `json:"channel,omitempty"`
	// All, on a release only: lift every hold on the selector.
	All bool `json:"all,omitempty"`
	// RequestID names the request, so that one sent twice is applied once
	// (runclient makes it the update's ID).
	RequestID string `json:"requestId,omitempty"`
}

// Validate refuses a hold or release without who and why, or too long.
func (s HoldSignal) Validate() error {
	switch {
	case strings.TrimSpace(s.By) == "":
		return errors.New("a hold or release names who asks it")
	case strings.TrimSpace(s.Reason) == "":
		return errors.New("a hold or release says why")
	case len(s.Reason) > MaxHoldReasonBytes:
		return fmt.Errorf("the reason is %d bytes; at most %d", len(s.Reason), MaxHoldReasonBytes)
	case len(s.By) > MaxHoldSelectorBytes:
		return fmt.Errorf("who is %d bytes; at most %d", len(s.By), MaxHoldSelectorBytes)
	case len(s.RequestID) > MaxHoldSelectorBytes:
		return fmt.Errorf("the request ID is %d bytes; at most %d", len(s.RequestID), MaxHoldSelectorBytes)
	}
	return s.Selector.Validate()
}

// SameSender tells whether by is the login that placed h: logins ignore
// case, as GitHub's do.
func (h Hold) SameSender(by string) bool { return strings.EqualFold(h.By, by) }

// What a hold or release did (HoldAnswer.Outcome).
const (
	// HoldOutcomePlaced: the sender had no hold on the selector; now one.
	HoldOutcomePlaced = "placed"
	// HoldOutcomeReplaced: the sender's hold on the selector has new words.
	HoldOutcomeReplaced = "replaced"
	// HoldOutcomeReleased: the sender's hold (every hold, with All) is gone.
	HoldOutcomeReleased = "released"
	// HoldOutcomeRefused: nothing changed (MaxHolds reached, a bad
	// selector); Note says why.
	HoldOutcomeRefused = "refused"
	// HoldOutcomeNothingToRelease: the sender holds nothing on the selector
	// (or, with All, nobody does); Note says who does.
	HoldOutcomeNothingToRelease = "nothing_to_release"
)

// HoldAnswer is what the holds workflow answers a hold or release.
type HoldAnswer struct {
	Outcome  string       `json:"outcome"`
	Selector HoldSelector `json:"selector"`
	// Note is the audit log's note: what it replaced or released, or why
	// nothing changed.
	Note string `json:"note,omitempty"`
	// Others are the holds others keep on the selector: after a release,
	// the runs it matches stay held while any is left.
	Others []Hold `json:"others,omitempty"`
}

// Changed tells whether the hold or release was applied.
func (a HoldAnswer) Changed() bool {
	return a.Outcome == HoldOutcomePlaced || a.Outcome == HoldOutcomeReplaced || a.Outcome == HoldOutcomeReleased
}

// Hold is an active hold.
type Hold struct {
	Selector HoldSelector `json:"selector"`
	By       string       `json:"by"`
	Reason   string       `json:"reason"`
	Channel  string       `json:"channel,omitempty"`
	At       time.Time    `json:"at"`
}

// Label is what a held run's step and label show.
func (h Hold) Label() string { return "held by ops: " + h.Reason }

// Hold log actions.
const (
	HoldPlaced   = "hold"
	HoldReleased = "release"
	// HoldRefused: a hold or release the holds workflow did not apply, and
	// why (nothing to release among them).
	HoldRefused = "refused"
)

// HoldEvent is one entry of the holds' audit log.
type HoldEvent struct {
	Action   string       `json:"action"`
	Selector HoldSelector `json:"selector"`
	By       string       `json:"by"`
	Reason   string       `json:"reason"`
	Channel  string       `json:"channel,omitempty"`
	At       time.Time    `json:"at"`
	// Note says what the change did: "replaced the hold placed by …", or
	// why it was refused.
	Note string `json:"note,omitempty"`
}

// HoldsView is the holds workflow's answer to QueryHolds: the active holds,
// oldest first, and the newest MaxHoldLog changes, oldest first.
type HoldsView struct {
	Active []Hold      `json:"active"`
	Log    []HoldEvent `json:"log"`
}

// Matching is the oldest active hold that matches c, or nil.
func (v HoldsView) Matching(c HoldCheck) *Hold {
	for i := range v.Active {
		if v.Active[i].Selector.Matches(c) {
			return &v.Active[i]
		}
	}
	return nil
}

// HoldCheck is what a run asks before it sends an action's attempt.
type HoldCheck struct {
	RunID   string   `json:"runId"`
	Agent   string   `json:"agent"`
	Tool    string   `json:"tool"`
	Targets []string `json:"targets"`
}

// HoldMatch answers a HoldCheck: the hold that stops the action, or nil.
type HoldMatch struct {
	Hold *Hold `json:"hold,omitempty"`
}

// HoldWaiter is a held run waiting to be told of a release: its check, as
// the run sends it (SignalHoldWaiter), and when the holds workflow last
// heard it. A run still held asks again at every recheck; one not heard
// from for long has ended, and is forgotten.
type HoldWaiter struct {
	HoldCheck
	Seen time.Time `json:"seen,omitzero"`
}

// HoldsState is the holds workflow's input, and what its continue-as-new
// carries: the view and the runs waiting on a hold.
type HoldsState struct {
	HoldsView
	Waiters []HoldWaiter `json:"waiters,omitempty"`
}
