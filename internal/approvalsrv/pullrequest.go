package approvalsrv

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/runclient"
)

// reviewActions are the pull_request actions that start a review: a new
// pull request, one reopened, a new head, and a draft made ready.
var reviewActions = map[string]bool{"opened": true, "reopened": true, "synchronize": true, "ready_for_review": true}

// headSHA is a commit ID as GitHub writes it.
var headSHA = regexp.MustCompile(`^[0-9a-f]{40}$`)

// PullHead is what a review's start needs of a pull request it was not
// delivered with (a /agentrun review comment): its head and state.
type PullHead struct {
	SHA   string
	Draft bool
	Open  bool
}

// PullReader reads a pull request's head (the process's *github.Access
// answers it, through the installation in app mode).
type PullReader interface {
	PullHead(ctx context.Context, owner, repo string, number int, installation int64) (PullHead, error)
}

// pullReview is a review to start: of which pull request at which head,
// asked by whom, under which entry of AGENTRUN_AUTO_REVIEW.
type pullReview struct {
	Repo         string
	Number       int
	Head         string
	Installation int64
	Sender       string
	Entry        AutoReviewEntry
	Trigger      string
	// Reopened: a reopened delivery, which reviews again a head whose
	// review the close ended before it posted (endedByClose).
	Reopened bool
	// ReviewedHead is the last head reviewed, for a push: the review then
	// reads only the change since. ReviewedDraft is the run whose review of
	// it was superseded while it waited, empty when that review posted.
	ReviewedHead  string
	ReviewedDraft string
	// Supersedes is the previous head's posted review, which the new
	// review marks superseded (workflows/supersede_edit.go).
	Supersedes *api.SupersededReview
}

// pullRequestDelivery starts the review a pull_request delivery asks for
// under AGENTRUN_AUTO_REVIEW; unset, or for a repository it does not list,
// the delivery changes nothing.
func (s *Server) pullRequestDelivery(ctx context.Context, delivery string, payload []byte) outcome {
	if len(s.cfg.AutoReview) == 0 {
		return outcome{Code: http.StatusNoContent}
	}
	parsed, err := github.ParseWebHook("pull_request", payload)
	if err != nil {
		return refused(http.StatusBadRequest, "malformed pull_request payload")
	}
	event, ok := parsed.(*github.PullRequestEvent)
	if !ok || !reviewActions[event.GetAction()] && event.GetAction() != "closed" {
		return outcome{Code: http.StatusNoContent}
	}
	repo := event.GetRepo().GetFullName()
	entry, listed := s.cfg.AutoReview.For(repo)
	if !listed {
		return outcome{Code: http.StatusNoContent}
	}
	pr := event.GetPullRequest()
	logger := s.logger.With("delivery", delivery, "repo", repo, "pull", event.GetNumber(), "action", event.GetAction(),
		"head", pr.GetHead().GetSHA(), "sender", event.GetSender().GetLogin())
	if event.GetAction() == "closed" {
		// The review of the last head ends: nothing stale is posted.
		s.supersede(ctx, logger, PullReviewRunID(repo, event.GetNumber(), pr.GetHead().GetSHA(), entry.AgentName()),
			api.SupersedeSignal{Closed: true, Delivery: delivery})
		return outcome{Code: http.StatusNoContent}
	}
	if pr.GetState() != "open" {
		return outcome{Code: http.StatusNoContent}
	}
	if pr.GetDraft() && !entry.Drafts {
		logger.Info("draft pull request not reviewed", "entry", entry.String())
		if before := event.GetBefore(); event.GetAction() == "synchronize" && headSHA.MatchString(before) && before != pr.GetHead().GetSHA() {
			// No review of the new head starts, but the old one is stale all the same.
			s.supersede(ctx, logger, PullReviewRunID(repo, event.GetNumber(), before, entry.AgentName()),
				api.SupersedeSignal{Head: pr.GetHead().GetSHA(), Delivery: delivery})
		}
		return accepted(fmt.Sprintf("%s#%d is a draft: it is reviewed once it is ready for review (AGENTRUN_AUTO_REVIEW's entry %s has no :drafts)",
			repo, event.GetNumber(), entry.Repo))
	}
	head := pr.GetHead().GetSHA()
	review := pullReview{
		Repo: repo, Number: event.GetNumber(), Head: head, Installation: event.GetInstallation().GetID(),
		Sender: event.GetSender().GetLogin(), Entry: entry, Trigger: "pull_request " + event.GetAction(),
		Reopened: event.GetAction() == "reopened",
	}
	if before := event.GetBefore(); event.GetAction() == "synchronize" && headSHA.MatchString(before) && before != head {
		review.ReviewedHead, review.ReviewedDraft, review.Supersedes = s.lastReviewedHead(ctx, logger, PullReviewRunID(repo, event.GetNumber(), before, entry.AgentName()), before)
	}
	o := s.startPullReview(ctx, logger, review)
	if before := event.GetBefore(); o.OK() && event.GetAction() == "synchronize" && before != "" && before != head {
		// After the new review started, so that the old one can name it.
		s.supersede(ctx, logger, PullReviewRunID(repo, event.GetNumber(), before, entry.AgentName()),
			api.SupersedeSignal{Head: head, By: PullReviewRunID(repo, event.GetNumber(), head, entry.AgentName()), Delivery: delivery})
	}
	return o
}

// lastReviewedHead is the last head agentrun reviewed on the pull request,
// as the review of the previous head (prev, of head before) knows it:
//   - before itself when that review posted: its comment is returned too,
//     for the new review to mark superseded;
//   - before itself, with prev as the draft, when its review waits for a
//     person: this push supersedes it unposted, and the new review reads
//     only what the push added, saying where that draft is, rather than
//     reviewing the earlier commits a second time;
//   - else the head that review was reviewing since, and its draft.
//
// Unknown (no such run, or Temporal unreachable) is "": the push is
// reviewed whole. A review rejected or expired by its timer is no review
// of its head: the person said no to it, so the next one reads from the
// head before it.
//
// The run is reached as a person's command reaches it, within the
// precheck's bound: a delivery must be answered within GitHub's 10 s. With
// no worker, its last known state stands in: the memo of a review that
// ended names the comments it posted, and that of one that waits its
// draft. Of a review still open and not waiting, it cannot tell whether a
// comment was posted since; the range is then taken from before that
// review (reading more, never less), and the review, once a worker picks
// it up, marks its own comment superseded (workflows/supersede.go).
func (s *Server) lastReviewedHead(ctx context.Context, logger *slog.Logger, prev, before string) (head, draft string, posted *api.SupersededReview) {
	reach, err := s.reach(ctx, prev)
	if err != nil {
		if !errors.Is(err, errRunNotFound) {
			logger.Warn("could not read the previous head's review; the push is reviewed whole", "previous", prev, "err", err)
		}
		return "", "", nil
	}
	snap := reach.Snapshot
	if len(snap.Outcome.Posted) > 0 {
		return before, "", postedReview(prev, snap.Outcome.Posted)
	}
	if a := snap.PendingAction; a != nil && a.State == api.ActionWaiting && !snap.Run.Status.IsTerminal() {
		return before, prev, nil
	}
	if !reach.Live {
		logger.Info("no worker answers for the previous head's review, and its last known state names no posted review: "+
			"the push is read from before that review, and a comment it may have posted is not marked superseded by this one",
			"previous", prev, "lastKnown", snap.Run.Status, "err", reach.NoAnswer)
	}
	if headSHA.MatchString(snap.Run.ReviewedHead) {
		return snap.Run.ReviewedHead, snap.Run.ReviewedDraft, nil
	}
	return "", "", nil
}

// postedReview is the last comment run posted, or nil.
func postedReview(run string, posted []api.PostedOutcome) *api.SupersededReview {
	for i := len(posted) - 1; i >= 0; i-- {
		if posted[i].CommentID > 0 {
			return &api.SupersededReview{Run: run, CommentID: posted[i].CommentID}
		}
	}
	return nil
}

// supersede tells the review of an older head that the pull request moved
// on. No such run (another agent's, one already ended, or a head no
// delivery started) is nothing to do; a failure is logged, not the
// delivery's answer: the new review has started either way.
func (s *Server) supersede(ctx context.Context, logger *slog.Logger, runID string, sig api.SupersedeSignal) {
	err := s.runs.Supersede(ctx, runID, sig)
	switch {
	case err == nil:
		logger.Info("older review superseded", "superseded", runID, "reason", sig.Reason())
	case errors.Is(err, errRunNotFound):
	default:
		logger.Warn("could not supersede the older review", "superseded", runID, "err", err)
	}
}

// startPullReview starts the review of r's head, or finds the one already
// started for it (PullReviewRunID): a redelivery, or two deliveries at
// once, start one run.
func (s *Server) startPullReview(ctx context.Context, logger *slog.Logger, r pullReview) outcome {
	switch {
	case !runclient.ValidRepo(r.Repo) || r.Number <= 0:
		return refused(http.StatusBadRequest, "the delivery names no pull request")
	case !headSHA.MatchString(r.Head):
		return refused(http.StatusBadRequest, "the delivery's head is not a commit ID")
	case checkName("sender", r.Sender) != nil:
		return refused(http.StatusBadRequest, "the delivery names no sender")
	}
	agent := r.Entry.Agent
	if agent == api.DefaultAgent {
		agent = "" // as every start of the default agent names it
	}
	in := api.RunInput{Repo: r.Repo, PullNumber: r.Number, Agent: agent, UserID: r.Sender, InstallationID: r.Installation,
		Head: r.Head, ReviewedHead: r.ReviewedHead, ReviewedDraft: r.ReviewedDraft, CheckRun: &api.CheckRunInput{HeadSHA: r.Head}, Supersedes: r.Supersedes,
		PostsWithoutAsking: r.Entry.PostsWithoutAsking()}
	runID := PullReviewRunID(r.Repo, r.Number, r.Head, r.Entry.AgentName())
	in.ConversationID = runID
	logger = logger.With("run", runID, "agent", r.Entry.AgentName())
	started, err := s.runs.Start(ctx, runclient.StartRequest{RunID: runID, TaskQueue: s.cfg.TaskQueue, Input: in})
	if err != nil {
		return temporalFailure(logger, err, "start a pull request's review")
	}
	if started.ClosedStatus != "" && r.Reopened && s.endedByClose(ctx, runID) {
		logger.Info("the pull request's close ended this head's review before it posted; reviewing it again", "trigger", r.Trigger)
		started, err = s.runs.Start(ctx, runclient.StartRequest{RunID: runID, TaskQueue: s.cfg.TaskQueue, Input: in, AfterClosed: true})
		if err != nil {
			return temporalFailure(logger, err, "start a reopened pull request's review")
		}
	}
	short := r.Head[:7]
	if started.ClosedStatus != "" {
		logger.Info("review of this head already ran", "closedStatus", started.ClosedStatus, "trigger", r.Trigger)
		return accepted(fmt.Sprintf("%s#%d at %s was already reviewed by %s: run %s (%s)", r.Repo, r.Number, short,
			r.Entry.AgentName(), runID, strings.ToLower(started.ClosedStatus)))
	}
	logger.Info("review started or found", "trigger", r.Trigger)
	waits := "it waits for a writer's approval before it posts"
	if r.Entry.Mode == ModePost {
		waits = "it posts without asking (" + r.Entry.PostsWithoutAsking() + ")"
	}
	return accepted(fmt.Sprintf("review of %s#%d at %s by %s: run %s; %s",
		r.Repo, r.Number, short, r.Entry.AgentName(), runID, waits))
}

// endedByClose tells whether the review runID names ended because its pull
// request was closed, with nothing posted: reopened at the same head, the
// pull request is then reviewed again. A review that posted, was decided
// or failed stays the head's review, and so does one that left an action
// in doubt: the new run would reuse its operationKeys.
func (s *Server) endedByClose(ctx context.Context, runID string) bool {
	snap, err := s.runs.Snapshot(ctx, runID)
	if err != nil || len(snap.Outcome.Posted) > 0 || snap.Cancel == nil || !snap.Cancel.Superseded || !snap.Cancel.Closed {
		return false
	}
	return !slices.ContainsFunc(snap.Steps, api.InDoubt)
}

// reviewCommand starts a review by hand: a writer's /agentrun review on a
// pull request of a repository AGENTRUN_AUTO_REVIEW lists. A reader's, or
// one elsewhere, is refused saying why.
func (s *Server) reviewCommand(ctx context.Context, logger *slog.Logger, event *github.IssueCommentEvent) outcome {
	repo, number := event.GetRepo().GetFullName(), event.GetIssue().GetNumber()
	login := event.GetComment().GetUser().GetLogin()
	switch {
	case !event.GetIssue().IsPullRequest():
		return refused(http.StatusUnprocessableEntity, "/agentrun review works on a pull request, not an issue")
	case isAgentOrBot(event.GetComment()):
		return refused(http.StatusForbidden, "a comment by a bot or by the agent itself cannot start a review")
	}
	entry, listed := s.cfg.AutoReview.For(repo)
	if !listed {
		return refused(http.StatusForbidden, fmt.Sprintf("%s is not among the repositories AGENTRUN_AUTO_REVIEW lists: this server reviews none of its pull requests", repo))
	}
	owner, name, _ := strings.Cut(repo, "/")
	if s.permissions == nil || s.pulls == nil {
		return refused(http.StatusServiceUnavailable, "this server cannot check GitHub permissions, so it starts no review by hand")
	}
	permission, err := s.permissions.Permission(ctx, owner, name, login)
	if err != nil {
		logger.Warn("permission check for /agentrun review failed", "err", err)
		return refused(http.StatusBadGateway, "could not read the commenter's permission on GitHub; comment again later")
	}
	if why := api.RefuseWriter(login, permission, repo, "starting a review"); why != "" {
		logger.Info("/agentrun review refused", "reason", why)
		return refused(http.StatusForbidden, why)
	}
	head, err := s.pulls.PullHead(ctx, owner, name, number, event.GetInstallation().GetID())
	if err != nil {
		logger.Warn("reading the pull request for /agentrun review failed", "err", err)
		return refused(http.StatusBadGateway, "could not read the pull request's head on GitHub; comment again later")
	}
	if !head.Open {
		return refused(http.StatusConflict, fmt.Sprintf("%s#%d is closed: nothing to review", repo, number))
	}
	return s.startPullReview(ctx, logger, pullReview{
		Repo: repo, Number: number, Head: head.SHA, Installation: event.GetInstallation().GetID(),
		Sender: login, Entry: entry, Trigger: "/agentrun review",
	})
}
