package runclient

import (
	"errors"

	"github.com/agentrun/agentrun/api"
)

// ActionIDPrefix is api.ActionIDPrefix.
const ActionIDPrefix = api.ActionIDPrefix

// MaxActionIDLength is api.MaxActionIDLength.
const MaxActionIDLength = api.MaxActionIDLength

// ErrBadActionID: the ID breaks ValidActionID's rule, so it was not used.
var ErrBadActionID = errors.New("the action ID must look like act-0123456789abcdef: \"act-\" followed by letters, digits, '_' or '-', at most 64 characters")

// ValidActionID is api.ValidActionID: the rule lives with the contract, so
// that the workflow, the approval server and this client share it.
func ValidActionID(id string) bool { return api.ValidActionID(id) }
