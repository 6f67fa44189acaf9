package api

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// A pull request run's check run: the run shows itself on the pull
// request's head commit as a check named CheckRunName(agent), created with
// external_id = the run ID, and, while an action waits, carries Approve and
// Reject buttons whose identifiers bind to that action (CheckButtonID).

// ActivitySyncCheckRun takes a CheckRunSync and returns a CheckRunSynced.
const ActivitySyncCheckRun = "SyncCheckRun"

// CheckRunPrefix starts the name of every agentrun check run.
const CheckRunPrefix = "agentrun/"

// CheckRunName is the check run of a run of agent: "agentrun/pr-review".
func CheckRunName(agent string) string { return CheckRunPrefix + agent }

// CheckRunInput asks a pull request run to own a check run. HeadSHA is the
// commit the check goes on; empty, the run uses the pull request's head
// when it first shows its check.
type CheckRunInput struct {
	HeadSHA string `json:"headSha,omitempty"`
}

// CheckCheckRun refuses a check run the run could not own: on a target
// that is not a pull request, or on a head that is not a full commit SHA.
func CheckCheckRun(c *CheckRunInput, target Target) error {
	if c == nil {
		return nil
	}
	if !target.IsPullRequest() {
		return fmt.Errorf("checkRun: only a pull request run shows itself as a check run, not a %s run", target.KindName())
	}
	if c.HeadSHA != "" && (len(c.HeadSHA) != 40 || strings.Trim(c.HeadSHA, "0123456789abcdef") != "") {
		return fmt.Errorf("checkRun.headSha: want the commit's 40 lowercase hex digits")
	}
	return nil
}

// Check run statuses and conclusions agentrun sets (GitHub's words).
const (
	CheckInProgress = "in_progress"
	CheckCompleted  = "completed"

	ConclusionSuccess   = "success"
	ConclusionNeutral   = "neutral"
	ConclusionFailure   = "failure"
	ConclusionCancelled = "cancelled"
)

// CheckRunSync is the state a run wants its check run to show; the
// activity makes the check run show it, creating the check run first
// when CheckRunID is 0 (after looking for one with external_id RunID, so
// that a create whose answer was lost is not made twice).
type CheckRunSync struct {
	RunID      string `json:"runId"`
	Repo       string `json:"repo"`
	PullNumber int    `json:"pullNumber"`
	Name       string `json:"name"`
	HeadSHA    string `json:"headSha,omitempty"`
	CheckRunID int64  `json:"checkRunId,omitempty"`
	Status     string `json:"status"`
	Conclusion string `json:"conclusion,omitempty"`
	// Title is the run's stable label; Summary the markdown under it.
	Title   string        `json:"title"`
	Summary string        `json:"summary"`
	Buttons []CheckButton `json:"buttons,omitempty"`
	// DetailsURL is the run's page; the activity fills it in from the
	// worker's configuration, so that it never enters the history.
	DetailsURL string `json:"detailsUrl,omitempty"`
}

// CheckButton is one of a check run's requested actions.
type CheckButton struct {
	Label       string `json:"label"`
	Description string `json:"description"`
	Identifier  string `json:"identifier"`
}

// CheckRunSynced is the check run the state was written to. Found: the
// run's check run already existed though the run had no ID for it (a lost
// create answer).
type CheckRunSynced struct {
	CheckRunID int64  `json:"checkRunId"`
	HeadSHA    string `json:"headSha"`
	Found      bool   `json:"found,omitempty"`
}

// checkButtonTokenLen is how many hex digits of the binding a button's
// identifier carries: GitHub allows 20 characters, "approve-" takes 8.
const checkButtonTokenLen = 12

// CheckButtonToken binds a button to one action as it is: its ID and its
// argsHash. A button shown for an action whose arguments were edited
// since, or for an earlier action, matches no waiting action.
func CheckButtonToken(actionID, argsHash string) string {
	sum := sha256.Sum256([]byte("agentrun check button\x00" + actionID + "\x00" + argsHash))
	return hex.EncodeToString(sum[:])[:checkButtonTokenLen]
}

// CheckButtonID is the identifier of the button that makes decision
// (DecisionApprove or DecisionReject) on the action: "approve-3f9c0a1b2c4d".
func CheckButtonID(decision, actionID, argsHash string) string {
	return decision + "-" + CheckButtonToken(actionID, argsHash)
}

// ParseCheckButtonID reads an identifier CheckButtonID made; false for any other.
func ParseCheckButtonID(id string) (decision, token string, ok bool) {
	decision, token, found := strings.Cut(id, "-")
	if !found || (decision != DecisionApprove && decision != DecisionReject) || len(token) != checkButtonTokenLen {
		return "", "", false
	}
	if _, err := hex.DecodeString(token); err != nil || strings.ToLower(token) != token {
		return "", "", false
	}
	return decision, token, true
}

// RejectedFromCheckRun is the reason a Reject button records.
const RejectedFromCheckRun = "rejected from the check run"

// CheckConclusion is the conclusion of a run that ended with status:
// success when one of its actions took effect, neutral when none did
// (rejected, expired, superseded or nothing to do), failure when it
// failed, cancelled when it was cancelled.
func CheckConclusion(status RunStatus, steps []*AgentStep) string {
	switch status {
	case RunFailed:
		return ConclusionFailure
	case RunCancelled:
		return ConclusionCancelled
	}
	for _, st := range steps {
		if st.Type == StepToolCall && st.OperationKey != "" && st.Status == StepSucceeded {
			return ConclusionSuccess
		}
	}
	return ConclusionNeutral
}
