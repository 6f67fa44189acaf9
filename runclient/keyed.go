package runclient

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/agentrun/agentrun/api"
)

// Errors of a start request that could not become a run; Start checks
// nothing else of the input, the workflow does.
var (
	// ErrIdempotencyConflict: the run the idempotency key names was started
	// by another request (another repository, pull request, goal, agent,
	// approvers, callback, approval timeout, step limit or check run).
	ErrIdempotencyConflict = errors.New("the idempotency key was already used for a different request " +
		"(another target, goal, agent, approvers, user, follow-up, callback, approval timeout, step limit or check run); use another key for it")
	// ErrBadAgent: the agent's name breaks api.ValidAgentName.
	ErrBadAgent = errors.New("the agent name must be lower case letters, digits and '-', starting with a letter, at most 63 characters")
)

// KeyedRunID is the run ID of a caller's idempotency key. It depends on the
// caller and the key alone, never on what the request asks, so that a repeat
// finds its run and a different request under the same key meets it too (and
// is told apart by RequestHash). The caller's length comes first so that no
// caller and key can be re-cut into another pair.
func KeyedRunID(caller, key string) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%d:%s:%s", len(caller), caller, key))
	return "run-" + hex.EncodeToString(sum[:16])
}

// RequestHash is the digest of what a start request asks, after defaults:
// target (repository and pull request, or another kind's), goal, agent,
// approvers (as a set), user, the run it follows up on, the callback (URL
// and deadline), the approval timeout, the step limit and the check run.
// Two requests are the same when their digests are: a repeat naming
// another callback, timeout, limit or check run is another request,
// refused, never answered with the first run while what it asked is
// dropped.
func RequestHash(in api.RunInput) string {
	approvers := slices.Clone(in.Approvers)
	slices.Sort(approvers)
	withDefaults := in.WithDefaults("")
	canonical, err := json.Marshal(struct {
		Repo       string   `json:"repo"`
		PullNumber int      `json:"pullNumber"`
		Goal       string   `json:"goal"`
		Agent      string   `json:"agent"`
		Approvers  []string `json:"approvers"`
		UserID     string   `json:"userId"`
		// A pull request has none, so that its hashes stay those of before
		// targets had kinds.
		Target *api.Target `json:"target,omitempty"`
		// A run that follows up on none has none, likewise.
		FollowUp string `json:"followUp,omitempty"`
		// A run without a callback has none, likewise.
		Callback *callbackDigest `json:"callback,omitempty"`
		// Each of these is left out at its default, likewise.
		ApprovalTimeout time.Duration      `json:"approvalTimeout,omitempty"`
		MaxSteps        int                `json:"maxSteps,omitempty"`
		CheckRun        *api.CheckRunInput `json:"checkRun,omitempty"`
	}{in.Repo, in.PullNumber, in.Goal, cmp.Or(in.Agent, api.DefaultAgent), approvers, in.UserID, in.Target, in.FollowUp, callbackOf(in),
		unlessDefault(withDefaults.ApprovalTimeout, api.DefaultApprovalTimeout), unlessDefault(withDefaults.MaxSteps, api.DefaultMaxSteps), in.CheckRun})
	if err != nil {
		panic(fmt.Sprintf("marshal a struct of strings: %v", err)) // cannot happen
	}
	sum := sha256.Sum256(canonical)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// unlessDefault is v, or zero when v is the default.
func unlessDefault[T comparable](v, def T) T {
	var zero T
	if v == def {
		return zero
	}
	return v
}

// callbackDigest is a callback after its default deadline.
type callbackDigest struct {
	URL      string `json:"url"`
	Deadline string `json:"deadline"`
}

func callbackOf(in api.RunInput) *callbackDigest {
	if in.Callback == nil {
		return nil
	}
	return &callbackDigest{URL: in.Callback.URL, Deadline: cmp.Or(in.Callback.Deadline, api.DefaultCallbackDeadline).String()}
}

// GitHub's own rules: an owner is letters, digits and hyphens; a repository
// name also allows dots and underscores, but is never "." or "..".
var repoPattern = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?/[A-Za-z0-9._-]{1,100}$`)

// ValidRepo reports whether repo is OWNER/NAME as GitHub allows them.
func ValidRepo(repo string) bool {
	return len(repo) <= 140 && repoPattern.MatchString(repo) && !strings.HasSuffix(repo, "/.") && !strings.HasSuffix(repo, "/..")
}

// ValidLogin follows GitHub's login rules: letters, digits and single inner
// hyphens, at most 39 of them, and the "[bot]" suffix GitHub Apps post under.
func ValidLogin(login string) bool {
	name := strings.TrimSuffix(login, "[bot]")
	if name == "" || len(name) > 39 || name[0] == '-' || name[len(name)-1] == '-' || strings.Contains(name, "--") {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
