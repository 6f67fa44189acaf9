package agentworker

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/worker"
)

func buildInfo(mainVersion string, settings map[string]string) *debug.BuildInfo {
	info := &debug.BuildInfo{Main: debug.Module{Path: "github.com/agentrun/agentrun", Version: mainVersion}}
	for k, v := range settings {
		info.Settings = append(info.Settings, debug.BuildSetting{Key: k, Value: v})
	}
	return info
}

func TestBuildIDFromInfo(t *testing.T) {
	const rev = "936890c4e1f0d0b6a4b2c3d4e5f60718293a4b5c"
	cases := []struct {
		name string
		info *debug.BuildInfo
		want string
	}{
		{"a clean checkout is its revision", buildInfo("v0.0.0-20261201-936890c4e1f0", map[string]string{"vcs.revision": rev, "vcs.modified": "false"}), rev},
		{"uncommitted changes are marked dirty", buildInfo("(devel)", map[string]string{"vcs.revision": rev, "vcs.modified": "true"}), rev + "+dirty"},
		{"go install of a tagged module is its version", buildInfo("v1.4.2", nil), "v1.4.2"},
		{"a build without VCS stamps has none", buildInfo("(devel)", map[string]string{"-trimpath": "true"}), ""},
		{"an empty module version is none", buildInfo("", nil), ""},
		{"no build info is none", nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, BuildIDFromInfo(tc.info))
		})
	}
}

func TestExecutableDigestNamesABuildByItsBytes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
		return path
	}
	one, err := executableDigest(write("one", "build one"))
	require.NoError(t, err)
	again, err := executableDigest(write("again", "build one"))
	require.NoError(t, err)
	other, err := executableDigest(write("other", "build two"))
	require.NoError(t, err)

	require.Regexp(t, `^sha256-[0-9a-f]{16}$`, one)
	require.Equal(t, one, again, "the same bytes are the same build")
	require.NotEqual(t, one, other, "other bytes are another build")
	_, err = executableDigest(filepath.Join(dir, "missing"))
	require.Error(t, err)
}

func TestDeploymentVersionIsZeroForAnUnversionedWorker(t *testing.T) {
	require.Equal(t, worker.WorkerDeploymentVersion{}, Deployment{Name: "agentrun", BuildID: "a"}.version())
	require.Equal(t, worker.WorkerDeploymentVersion{DeploymentName: "agentrun", BuildID: "a"},
		Deployment{Pinned: true, Name: "agentrun", BuildID: "a"}.version())
}
