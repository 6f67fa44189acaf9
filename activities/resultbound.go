package activities

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/redact"
)

// MaxToolErrorBytes bounds the text of a tool's error (a server may put its
// whole answer in one), and of a reconcile's reason.
const MaxToolErrorBytes = 8 << 10

// stepHeadBytes is how much of cut content a step record shows: redact
// shows no more of any step's output.
const stepHeadBytes = 1 << 10

// cutResult stands in for a tool's content over api.MaxToolResultBytes: the
// model reads that it was cut, the original's size and sha256, what the
// action created (never cut: it is the proof), and the content's head as
// text.
type cutResult struct {
	Truncated  bool            `json:"truncated"`
	Bytes      int             `json:"bytes"`
	SHA256     string          `json:"sha256"`
	Note       string          `json:"note"`
	ExternalID string          `json:"externalId,omitempty"`
	URL        string          `json:"url,omitempty"`
	Head       string          `json:"head,omitempty"`
	SafeOutput json.RawMessage `json:"safeOutput,omitempty"`
}

// boundOutput cuts out's Content to api.MaxToolResultBytes and its SafeOutput
// to what a step record shows, leaving ExternalID, URL, AlreadyExisted and
// Ignored as they are. Content within the bound is not touched.
func boundOutput(tool string, out api.ToolOutput) api.ToolOutput {
	if len(out.SafeOutput) > api.MaxToolResultBytes {
		out.SafeOutput = redact.JSON(out.SafeOutput)
	}
	if len(out.Content) <= api.MaxToolResultBytes {
		return out
	}
	sum := sha256.Sum256(out.Content)
	cut := cutResult{
		Truncated: true, Bytes: len(out.Content), SHA256: hex.EncodeToString(sum[:]),
		Note: fmt.Sprintf("%s answered %d bytes, over this worker's bound of %d: this is the start of its answer, as text; the rest was left out, so say what you did not see",
			tool, len(out.Content), api.MaxToolResultBytes),
		ExternalID: out.ExternalID, URL: out.URL,
	}
	content := string(out.Content)
	// The step shows the cut too: with the head only when the tool gave no
	// step output of its own, since one it gave means Content holds what a
	// step must not show.
	step := cut
	if out.SafeOutput != nil {
		step.SafeOutput = redact.JSON(out.SafeOutput)
	} else {
		step.Head = api.TruncateUTF8(content, stepHeadBytes)
	}
	out.SafeOutput = redact.JSON(step)
	out.Content = withHead(cut, content)
	return out
}

// withHead is cut with as much of content's head as fits in
// api.MaxToolResultBytes once escaped for JSON: escaping may grow a byte to six
// (a control character), so the head shrinks by what it overflowed.
func withHead(cut cutResult, content string) json.RawMessage {
	room := api.MaxToolResultBytes - 1024
	n := room
	content = strings.ToValidUTF8(content, "\uFFFD")
	for {
		cut.Head = api.TruncateUTF8(content, n)
		raw, _ := json.Marshal(cut) // strings only: it cannot fail
		if len(raw) <= api.MaxToolResultBytes {
			return raw
		}
		n = min(n-1, n*room/len(raw))
	}
}

// boundReason cuts a reconcile's reason to MaxToolErrorBytes.
func boundReason(reason string) string {
	if len(reason) <= MaxToolErrorBytes {
		return reason
	}
	return cutText(reason)
}

func cutText(s string) string {
	sum := sha256.Sum256([]byte(s))
	return fmt.Sprintf("%s… [cut: %d bytes in all, sha256 %s]",
		api.TruncateUTF8(s, MaxToolErrorBytes-128), len(s), hex.EncodeToString(sum[:]))
}

// boundError cuts the text of a tool's error to MaxToolErrorBytes. The cut
// error keeps what the run decides on: its type (rejected, rate limited),
// whether it is retryable, and a rate limit's delay. The text of its causes
// is in its message, so they are left out.
func boundError(err error) error {
	if err == nil || len(err.Error()) <= MaxToolErrorBytes {
		return err
	}
	msg := cutText(err.Error())
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) {
		return errors.New(msg)
	}
	opts := temporal.ApplicationErrorOptions{NonRetryable: appErr.NonRetryable()}
	var delay api.RateLimitDetails
	if appErr.Type() == api.ErrTypeRateLimited && appErr.Details(&delay) == nil {
		opts.Details = []any{delay}
	}
	return temporal.NewApplicationErrorWithOptions(msg, appErr.Type(), opts)
}
