package agentworker

import (
	"go.temporal.io/sdk/worker"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/registration"
)

// Register is registration.Register: the worker main registers exactly
// what a library user's worker does.
func Register(w worker.Registry, acts *activities.Activities) {
	registration.Register(w, acts)
}
