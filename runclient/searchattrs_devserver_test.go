package runclient_test

import (
	"errors"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/composecheck"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/runclient"
)

// allFour are agentrun's search attributes, sorted, as the errors name them.
var allFour = []string{"AgentRunActionIds", "AgentRunAgent", "AgentRunStatus", "ConversationId"}

// bareServer is a dev server started as a person types `temporal server
// start-dev`: without agentrun's search attributes.
func bareServer(t *testing.T) *testkit.Server {
	t.Helper()
	testkit.NeedsDevServer(t)
	return testkit.StartServer(t, testkit.ServerOptions{NoSearchAttributes: true})
}

func clientOf(server *testkit.Server, c client.Client) *runclient.Client {
	return runclient.New(c, runclient.Options{CallTimeout: 10 * time.Second, Address: server.Address(), Namespace: "default"})
}

func TestTheRequiredSearchAttributesAreEveryOneTheAPIDeclares(t *testing.T) {
	declared, err := composecheck.DeclaredSearchAttributes(filepath.Join("..", "api"))
	require.NoError(t, err)
	required := map[string]string{}
	for name, typ := range runclient.RequiredSearchAttributes() {
		required[name] = typ.String()
	}
	require.Equal(t, declared, required)
}

func TestSetUpOnABareDevServerAddsAllFourAndARunThenStartsAndLists(t *testing.T) {
	server := bareServer(t)
	rc := clientOf(server, server.Client())
	ctx := testContext(t)

	added, err := rc.SetUpSearchAttributes(ctx)
	require.NoError(t, err)
	require.Equal(t, allFour, added)
	again, err := rc.SetUpSearchAttributes(ctx)
	require.NoError(t, err)
	require.Empty(t, again, "a namespace that has them all is left alone")

	req := runclient.StartRequest{RunID: "run-after-setup", TaskQueue: "no-worker", Input: api.RunInput{
		Repo: "acme/widgets", PullNumber: 1, UserID: "carol", ConversationID: "conv-1", Agent: "setup-test",
	}}
	_, err = rc.Start(ctx, req)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		runs, err := rc.List(ctx, runclient.ListFilter{Status: api.RunRunning, Agent: "setup-test"})
		return err == nil && len(runs) == 1 && runs[0].RunID == req.RunID
	}, time.Minute, 50*time.Millisecond, "the run started after the setup is never listed by its status and agent")
}

func TestAStartOnANamespaceWithoutTheSearchAttributesNamesEveryOneAndTheCommand(t *testing.T) {
	server := bareServer(t)
	rc := clientOf(server, server.Client())
	ctx := testContext(t)

	_, err := rc.Start(ctx, runclient.StartRequest{RunID: "run-bare", TaskQueue: "no-worker", Input: api.RunInput{Repo: "acme/widgets", PullNumber: 1}})

	var missing *runclient.MissingSearchAttributesError
	require.ErrorAs(t, err, &missing)
	require.Equal(t, allFour, missing.Missing)
	require.ErrorIs(t, err, runclient.ErrSearchAttributesMissing)
	require.Contains(t, err.Error(), runclient.AddSearchAttributesCommand(server.Address(), "default"))

	_, err = rc.List(ctx, runclient.ListFilter{Status: api.RunWaitingForUser})
	require.ErrorAs(t, err, &missing, "a listing that filters on a missing attribute says the same")
	require.Equal(t, allFour, missing.Missing)
}

func TestTheCommandTheErrorGivesAddsEveryAttributeOnABareDevServer(t *testing.T) {
	server := bareServer(t)
	rc := clientOf(server, server.Client())
	ctx := testContext(t)
	cli := testkit.TemporalCLI(t)
	if filepath.Base(cli) != "temporal" {
		t.Skipf("the command names `temporal`, and the CLI at %s is named otherwise", cli)
	}
	shell := exec.CommandContext(ctx, "sh", "-c", runclient.AddSearchAttributesCommand(server.Address(), "default"))
	shell.Env = append(shell.Environ(), "PATH="+filepath.Dir(cli)+":/usr/bin:/bin")

	out, err := shell.CombinedOutput()
	require.NoError(t, err, "%s", out)

	require.Eventually(t, func() bool {
		added, err := rc.SetUpSearchAttributes(ctx)
		return err == nil && len(added) == 0
	}, time.Minute, 100*time.Millisecond, "after the command, the setup still finds attributes to add")
	_, err = rc.Start(ctx, runclient.StartRequest{RunID: "run-after-command", TaskQueue: "no-worker", Input: api.RunInput{Repo: "acme/widgets", PullNumber: 1}})
	require.NoError(t, err)
}

func TestASetUpTheServerRefusesAnswersTheMissingAttributesAndTheCommand(t *testing.T) {
	server := bareServer(t)
	for _, refusal := range []error{
		serviceerror.NewPermissionDenied("Request unauthorized.", ""),
		serviceerror.NewUnimplemented("unknown method AddSearchAttributes"),
	} {
		t.Run(refusal.Error(), func(t *testing.T) {
			rc := clientOf(server, testkit.RefusingToAddSearchAttributes(server.Client(), refusal))

			added, err := rc.SetUpSearchAttributes(testContext(t))

			require.Empty(t, added)
			var missing *runclient.MissingSearchAttributesError
			require.ErrorAs(t, err, &missing)
			require.Equal(t, allFour, missing.Missing)
			require.Contains(t, err.Error(), runclient.AddSearchAttributesCommand(server.Address(), "default"))
			require.Contains(t, err.Error(), refusal.Error(), "the refusal is named, so that the operator knows why it was not done for them")
		})
	}
}

func TestASetUpMeetingAnAttributeOfAnotherTypeNamesIt(t *testing.T) {
	server := bareServer(t)
	ctx := testContext(t)
	_, err := server.Client().OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
		Namespace: "default", SearchAttributes: map[string]enumspb.IndexedValueType{"AgentRunStatus": enumspb.INDEXED_VALUE_TYPE_TEXT},
	})
	require.NoError(t, err)
	rc := clientOf(server, server.Client())

	var wrongType *runclient.SearchAttributeTypeError
	require.Eventually(t, func() bool {
		_, err = rc.SetUpSearchAttributes(ctx)
		return errors.As(err, &wrongType)
	}, time.Minute, 100*time.Millisecond, "the setup never refused the Text AgentRunStatus: %v", err)
	require.Equal(t, "AgentRunStatus", wrongType.Name)
	require.Contains(t, err.Error(), "AgentRunStatus of namespace default is a Text, and agentrun needs a Keyword")
	listed, err := server.Client().OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: "default"})
	require.NoError(t, err)
	for _, name := range allFour {
		if name != "AgentRunStatus" {
			require.NotContains(t, listed.GetCustomAttributes(), name, "nothing is added beside an attribute of the wrong type")
		}
	}
}
