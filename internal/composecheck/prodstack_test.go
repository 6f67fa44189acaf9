package composecheck

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/internal/prodstack"
	"github.com/agentrun/agentrun/internal/testkit"
)

// TestComposeRunsWhatTheProductionClusterTestProves: compose is never run
// here (no Docker engine), but `make test-prod` runs the same engine from
// built binaries. These are the settings the two must share.
func TestComposeRunsWhatTheProductionClusterTestProves(t *testing.T) {
	project := mustLoadCompose(t, nil)
	root := repoModule(t).Root
	temporal := service(t, project, serviceTemporal)

	require.Equal(t, strings.TrimPrefix(prodstack.ServerVersion, "v"), ParseImageRef(temporal.Image).Tag,
		"compose's auto-setup runs the server release make test-prod builds")
	postgres := ParseImageRef(service(t, project, "postgres").Image)
	major, _, _ := strings.Cut(postgres.Tag, ".")
	require.Equal(t, strconv.Itoa(prodstack.PostgresMajor), major, "compose's PostgreSQL is the major version the test runs")
	require.Equal(t, prodstack.SQLPlugin, environment(temporal)["DB"], "the same persistence plugin")
	// The shard count is fixed when a cluster is created; auto-setup's
	// default is what the test's server is created with.
	require.Contains(t, []string{"", strconv.Itoa(prodstack.NumHistoryShards)}, environment(temporal)["NUM_HISTORY_SHARDS"])
	mountedFile(t, temporal, filepath.Join(root, prodstack.DynamicConfigFile))

	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	require.NoError(t, err)
	version := regexp.MustCompile(`(?m)^TEMPORAL_SERVER_VERSION := (\S+)$`).FindSubmatch(makefile)
	require.NotNil(t, version, "the Makefile sets TEMPORAL_SERVER_VERSION")
	require.Equal(t, prodstack.ServerVersion, string(version[1]), "the Makefile builds the server prodstack looks for")
}

// TestTestServersRegisterEverySearchAttributeTheContractDeclares: the dev
// server and the production cluster of the tests register
// testkit.SearchAttributes, as deploy/temporal-setup.sh registers the
// declared ones for compose.
func TestTestServersRegisterEverySearchAttributeTheContractDeclares(t *testing.T) {
	declared, err := DeclaredSearchAttributes(filepath.Join(repoModule(t).Root, "api"))
	require.NoError(t, err)

	registered := map[string]string{}
	for key := range testkit.SearchAttributes().GetUntypedValues() {
		registered[key.GetName()] = key.GetValueType().String()
	}

	require.Equal(t, slices.Sorted(maps.Keys(declared)), slices.Sorted(maps.Keys(registered)))
	for name, typ := range declared {
		require.Equal(t, typ, registered[name], "type of %s", name)
	}
}
