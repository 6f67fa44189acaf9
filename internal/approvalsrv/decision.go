package approvalsrv

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentrun/agentrun/api"
)

// Field limits keep what reaches the workflow history and the page small.
const (
	maxNameLength      = 100
	maxRequestIDLength = 200
	maxReasonLength    = 2000
)

// DecisionRequest is the body of POST /v1/runs/{runId}/actions/{actionId}/decision.
type DecisionRequest struct {
	Decision  string `json:"decision"`
	Approver  string `json:"approver"`
	Reason    string `json:"reason,omitempty"`
	RequestID string `json:"requestId"`
}

// ResolveRequest is the body of POST /v1/runs/{runId}/steps/{stepId}/resolve.
type ResolveRequest struct {
	Decision           string `json:"decision"`
	By                 string `json:"by"`
	ExternalResourceID string `json:"externalResourceId,omitempty"`
	RequestID          string `json:"requestId"`
}

// BadRequestError says what is wrong with a request body; its text is meant
// for the caller.
type BadRequestError struct {
	Problem string
}

func (e *BadRequestError) Error() string { return e.Problem }

func badRequest(format string, args ...any) error {
	return &BadRequestError{Problem: fmt.Sprintf(format, args...)}
}

// ParseDecision parses and validates a decision body. Every error it returns
// is a *BadRequestError.
func ParseDecision(body []byte) (DecisionRequest, error) {
	var req DecisionRequest
	if err := decodeStrictJSON(body, &req); err != nil {
		return DecisionRequest{}, err
	}
	if err := req.validate(); err != nil {
		return DecisionRequest{}, err
	}
	return req, nil
}

// validate checks a decision from any channel.
func (req DecisionRequest) validate() error {
	switch req.Decision {
	case api.DecisionApprove, api.DecisionReject:
	case "":
		return badRequest("missing field: decision")
	default:
		return badRequest("unknown decision %q: want approve or reject", clip(req.Decision))
	}
	if err := checkName("approver", req.Approver); err != nil {
		return err
	}
	if err := checkRequestID(req.RequestID); err != nil {
		return err
	}
	return checkReason(req.Decision, req.Reason)
}

// ParseResolve parses and validates a resolve body.
func ParseResolve(body []byte) (ResolveRequest, error) {
	var req ResolveRequest
	if err := decodeStrictJSON(body, &req); err != nil {
		return ResolveRequest{}, err
	}
	switch req.Decision {
	case api.ResolveRetry, api.ResolveMarkSucceeded, api.ResolveAbandon:
	case "":
		return ResolveRequest{}, badRequest("missing field: decision")
	default:
		return ResolveRequest{}, badRequest("unknown decision %q: want retry, mark_succeeded or abandon", clip(req.Decision))
	}
	if err := checkName("by", req.By); err != nil {
		return ResolveRequest{}, err
	}
	if err := checkRequestID(req.RequestID); err != nil {
		return ResolveRequest{}, err
	}
	if len(req.ExternalResourceID) > maxRequestIDLength || hasControl(req.ExternalResourceID) {
		return ResolveRequest{}, badRequest("externalResourceId is too long or has control characters")
	}
	return req, nil
}

// decodeStrictJSON refuses unknown fields and trailing data so that a typo in
// a field name is an error rather than a silently missing value.
func decodeStrictJSON(body []byte, into any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return badRequest("malformed JSON: %s", describeJSONError(err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return badRequest("malformed JSON: data after the object")
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
		return clip(strings.TrimPrefix(err.Error(), "json: "))
	}
	return "not a JSON object"
}

func checkName(field, value string) error {
	if strings.TrimSpace(value) == "" {
		return badRequest("missing field: %s", field)
	}
	if len(value) > maxNameLength || hasControl(value) || value != strings.TrimSpace(value) {
		return badRequest("%s must be at most %d characters, without control characters or surrounding spaces", field, maxNameLength)
	}
	return nil
}

func checkRequestID(id string) error {
	if strings.TrimSpace(id) == "" {
		return badRequest("missing field: requestId")
	}
	if len(id) > maxRequestIDLength || hasControl(id) {
		return badRequest("requestId must be at most %d characters, without control characters", maxRequestIDLength)
	}
	return nil
}

func checkReason(decision, reason string) error {
	if decision == api.DecisionReject && strings.TrimSpace(reason) == "" {
		return badRequest("missing field: reason (a rejection needs one)")
	}
	if len(reason) > maxReasonLength || !utf8.ValidString(reason) {
		return badRequest("reason must be valid UTF-8 of at most %d bytes", maxReasonLength)
	}
	return nil
}

func hasControl(s string) bool {
	if !utf8.ValidString(s) {
		return true
	}
	return strings.IndexFunc(s, unicode.IsControl) >= 0
}

// clip shortens caller-supplied text that is echoed back in an error.
func clip(s string) string {
	const max = 40
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
