package runclient

import (
	"errors"
	"strings"
	"unicode/utf8"
)

// ActionIDPrefix starts every action ID: the workflow makes act-<16 hex>;
// runs from before that made act-<stepId> (act-step-4).
const ActionIDPrefix = "act-"

// MaxActionIDLength bounds an action ID, wherever it comes from.
const MaxActionIDLength = 64

// ErrBadActionID: the ID breaks ValidActionID's rule, so it was not used.
var ErrBadActionID = errors.New("the action ID must look like act-0123456789abcdef: \"act-\" followed by letters, digits, '_' or '-', at most 64 characters")

// ValidActionID is the rule for an action ID, wherever it comes from (a
// path, a GitHub comment): its alphabet cannot break out of the quotes of a
// visibility query.
func ValidActionID(id string) bool {
	rest, ok := strings.CutPrefix(id, ActionIDPrefix)
	if !ok || rest == "" || len(id) > MaxActionIDLength {
		return false
	}
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

// clip shortens an ID that failed its rule for an error message: it may be
// long, and it came from outside.
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
