package activities_test

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/api"
)

// The worker registers Activities' methods, and Temporal names each activity
// after its method; histories record those names, so a renamed method would
// break open runs. api's names are the contract the methods must keep.
func TestEveryActivityNameInTheContractIsAMethodOfActivities(t *testing.T) {
	methods := reflect.TypeOf(&activities.Activities{})
	for _, name := range []string{
		api.ActivityModelNext,
		api.ActivityExecuteTool,
		api.ActivityReconcileTool,
		api.ActivityCheckRepoPermission,
		api.ActivityDeliverResult,
		api.ActivityLoadFollowUp,
		api.ActivityCheckHolds,
		api.ActivitySyncCheckRun,
		api.ActivityMarkSuperseded,
	} {
		_, ok := methods.MethodByName(name)
		require.True(t, ok, "activities.Activities has no method %s", name)
	}
}
