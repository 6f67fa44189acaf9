package approvalsrv

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/approvalsrv/auth"
)

// Field limits keep what reaches the workflow history and the page small.
const (
	// maxNameLength is the login proxy's: the user it names is the approver.
	maxNameLength      = auth.MaxNameLength
	maxRequestIDLength = 200
	// maxReasonLength bounds a reason, from any channel.
	maxReasonLength = 2000
	// maxEcho bounds caller-supplied text echoed back in an error.
	maxEcho = 40
)

// Decision is the body of POST /v1/runs/{runId}/actions/{actionId}/decision.
type Decision struct {
	Decision  string `json:"decision"`
	Approver  string `json:"approver"`
	Reason    string `json:"reason,omitempty"`
	RequestID string `json:"requestId"`
	// ArgsHash, when set, is the input (api.PendingAction.ArgsHash) the
	// caller saw and decided on; the server refuses it once the action's
	// input is another.
	ArgsHash string `json:"argsHash,omitempty"`
	// Args, only with an approve, are the action's arguments as the
	// approver edited them: a JSON object of at most api.MaxEditArgsBytes,
	// with ArgsHash naming the version edited.
	Args json.RawMessage `json:"args,omitempty"`
}

// resolveRequest is the body of POST /v1/runs/{runId}/steps/{stepId}/resolve.
type resolveRequest struct {
	Decision           string `json:"decision"`
	By                 string `json:"by"`
	ExternalResourceID string `json:"externalResourceId,omitempty"`
	RequestID          string `json:"requestId"`
}

// invalidRequest says what is wrong with a request; its text is meant for the
// caller, whichever channel the request came through.
type invalidRequest struct {
	Problem string
}

func (e *invalidRequest) Error() string { return e.Problem }

// invalidf is an *invalidRequest with a formatted problem.
func invalidf(format string, args ...any) error {
	return &invalidRequest{Problem: fmt.Sprintf(format, args...)}
}

// parseDecision parses and validates a decision body. Every error it returns
// is a *invalidRequest.
func parseDecision(body []byte) (Decision, error) { return parse[Decision](body) }

// parse decodes a body strictly and validates it, as every channel's rule
// for T says: a request is whole and valid, or the zero T with a *invalidRequest.
func parse[T interface{ Validate() error }](body []byte) (T, error) {
	var req T
	if err := decodeStrictJSON(body, &req); err != nil {
		var zero T
		return zero, err
	}
	if err := req.Validate(); err != nil {
		var zero T
		return zero, err
	}
	return req, nil
}

// Validate checks a decision from any channel.
func (req Decision) Validate() error {
	if err := checkDecided(req.Decision, decisions, "approver", req.Approver, req.RequestID); err != nil {
		return err
	}
	if req.ArgsHash != "" {
		if err := checkArgsHash("argsHash", req.ArgsHash); err != nil {
			return err
		}
	}
	if err := checkEditedArgs(req); err != nil {
		return err
	}
	return checkReason(req.Decision, req.Reason)
}

// checkEditedArgs is the rule for an edit, wherever it comes from: only an
// approve carries one, bound to the version it edits, and it is one JSON
// object of bounded size.
func checkEditedArgs(req Decision) error {
	if len(req.Args) == 0 {
		return nil
	}
	switch {
	case req.Decision != api.DecisionApprove:
		return invalidf("args (edited arguments) go only with an approve")
	case req.ArgsHash == "":
		return invalidf("missing field: argsHash (an edit names the version of the action it edits)")
	case len(req.Args) > api.MaxEditArgsBytes:
		return invalidf("args must be at most %d bytes", api.MaxEditArgsBytes)
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(req.Args, &obj) != nil || obj == nil {
		return invalidf("args must be a JSON object: the action's arguments as edited")
	}
	return nil
}

// argsHashLength is a sha256 in hex, as api.ArgsHash and api.ToolArgsHash
// make it.
const argsHashLength = 64

// checkArgsHash is the rule for an argsHash, wherever it comes from.
func checkArgsHash(field, hash string) error {
	if len(hash) != argsHashLength || strings.IndexFunc(hash, func(r rune) bool {
		return (r < '0' || r > '9') && (r < 'a' || r > 'f')
	}) >= 0 {
		return invalidf("%s must be %d lowercase hex digits (the action's argsHash)", field, argsHashLength)
	}
	return nil
}

// parseResolve parses and validates a resolve body.
func parseResolve(body []byte) (resolveRequest, error) { return parse[resolveRequest](body) }

// Validate checks a resolve.
func (req resolveRequest) Validate() error {
	if err := checkDecided(req.Decision, resolutions, "by", req.By, req.RequestID); err != nil {
		return err
	}
	if len(req.ExternalResourceID) > maxRequestIDLength || hasControl(req.ExternalResourceID) {
		return invalidf("externalResourceId is too long or has control characters")
	}
	return nil
}

// The decisions each request takes, in the order an error lists them.
var (
	decisions   = []string{api.DecisionApprove, api.DecisionReject, api.DecisionRespond}
	resolutions = []string{api.ResolveRetry, api.ResolveMarkSucceeded, api.ResolveAbandon}
)

// checkDecided checks what a decision and a resolve both carry: one of the
// allowed decisions, who made it (under field) and the request's ID.
func checkDecided(decision string, allowed []string, field, who, requestID string) error {
	switch {
	case decision == "":
		return invalidf("missing field: decision")
	case !slices.Contains(allowed, decision):
		last := len(allowed) - 1
		return invalidf("unknown decision %q: want %s or %s", clip(decision, maxEcho), strings.Join(allowed[:last], ", "), allowed[last])
	}
	if err := checkName(field, who); err != nil {
		return err
	}
	return checkRequestID(requestID)
}

// decodeStrictJSON refuses unknown fields and trailing data so that a typo in
// a field name is an error rather than a silently missing value.
func decodeStrictJSON(body []byte, into any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return invalidf("malformed JSON: %s", describeJSONError(err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return invalidf("malformed JSON: data after the object")
	}
	return nil
}

func describeJSONError(err error) string {
	var syntax *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "unexpected end of input"
	case errors.As(err, &syntax):
		return fmt.Sprintf("syntax error at byte %d", syntax.Offset)
	case errors.As(err, &typeErr) && typeErr.Field == "":
		return "the body must be a JSON object"
	case errors.As(err, &typeErr):
		return fmt.Sprintf("field %q must be a %s", typeErr.Field, typeErr.Type)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return clip(strings.TrimPrefix(err.Error(), "json: "), maxEcho)
	}
	return "not a JSON object"
}

func checkName(field, value string) error {
	if strings.TrimSpace(value) == "" {
		return invalidf("missing field: %s", field)
	}
	if len(value) > maxNameLength || hasControl(value) || value != strings.TrimSpace(value) {
		return invalidf("%s must be at most %d characters, without control characters or surrounding spaces", field, maxNameLength)
	}
	return nil
}

func checkRequestID(id string) error {
	if strings.TrimSpace(id) == "" {
		return invalidf("missing field: requestId")
	}
	if len(id) > maxRequestIDLength || hasControl(id) {
		return invalidf("requestId must be at most %d characters, without control characters", maxRequestIDLength)
	}
	return nil
}

func checkReason(decision, reason string) error {
	if decision == api.DecisionReject && strings.TrimSpace(reason) == "" {
		return invalidf("missing field: reason (a rejection needs one)")
	}
	if decision == api.DecisionRespond && strings.TrimSpace(reason) == "" {
		return invalidf("missing field: reason (a respond's feedback)")
	}
	if decision == api.DecisionRespond && len(reason) > api.MaxFeedbackBytes {
		return invalidf("reason (feedback) must be at most %d bytes", api.MaxFeedbackBytes)
	}
	if len(reason) > maxReasonLength || !utf8.ValidString(reason) {
		return invalidf("reason must be valid UTF-8 of at most %d bytes", maxReasonLength)
	}
	return nil
}

// hasControl reports control characters or invalid UTF-8: neither belongs
// in a name, an ID or a reason.
func hasControl(s string) bool {
	if !utf8.ValidString(s) {
		return true
	}
	return strings.IndexFunc(s, unicode.IsControl) >= 0
}

// clip shortens caller-supplied text to at most max bytes, at a rune
// boundary, marking the cut with "…": text echoed back in an error, or
// shown as an excerpt.
func clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	for i := max; i > 0; i-- {
		if utf8.RuneStart(s[i]) {
			return s[:i] + "…"
		}
	}
	return ""
}
