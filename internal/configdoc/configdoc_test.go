package configdoc

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/internal/config"
)

var sample = []config.Var{
	{Name: "APPROVAL_SECRET", Description: "HMAC key | of the API", Secret: true, Required: true},
	{Name: "APPROVAL_ADDR", Default: "127.0.0.1:8080", Description: "listen address"},
	{Name: "OPENAI_MODEL", Description: "model name", Required: true, RequiredWhen: "with MODEL_PROVIDER=openai"},
	{Name: "METRICS_ADDR", Description: "metrics"},
}

func TestSectionRendersEachSettingAsHelpDescribesIt(t *testing.T) {
	got := Section("approval", sample)

	require.Contains(t, got, "| `APPROVAL_SECRET` | required; secret, or a file named by `APPROVAL_SECRET_FILE` | HMAC key \\| of the API |\n")
	require.Contains(t, got, "| `APPROVAL_ADDR` | `127.0.0.1:8080` | listen address |\n")
	require.Contains(t, got, "| `OPENAI_MODEL` | required with MODEL_PROVIDER=openai | model name |\n")
	require.Contains(t, got, "| `METRICS_ADDR` | (none) | metrics |\n")
}

func TestRewriteReplacesOnlyItsProgramsSection(t *testing.T) {
	path := filepath.Join(t.TempDir(), "configuration.md")
	intro := "# Configuration\n\nhand-written intro\n"
	require.NoError(t, os.WriteFile(path, []byte(intro), 0o644))

	require.NoError(t, rewrite(path, "approval", Section("approval", sample[:1])))
	require.NoError(t, rewrite(path, "worker", Section("worker", sample[3:])))
	require.NoError(t, rewrite(path, "approval", Section("approval", sample)))

	page, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, intro+"\n## approval\n\n"+Section("approval", sample)+"\n## worker\n\n"+Section("worker", sample[3:]), string(page))
}

func TestAStaleSectionIsFoundAndAMissingOneIsNot(t *testing.T) {
	page := "intro\n" + Section("worker", sample[3:]) + "outro\n"

	got, ok := sectionOf(page, "worker")
	require.True(t, ok)
	require.Equal(t, Section("worker", sample[3:]), got)
	require.NotEqual(t, Section("worker", sample), got, "a setting added to the table makes the section stale")
	_, ok = sectionOf(page, "starter")
	require.False(t, ok)
}

func TestAStaleSectionsFailureShowsOnlyTheChangedRows(t *testing.T) {
	got := lineDiff(Section("worker", sample[2:]), Section("worker", sample[1:]))

	require.Equal(t, "rows the table adds (+) and the page still has (-):\n+ | `APPROVAL_ADDR` | `127.0.0.1:8080` | listen address |\n", got)
}
