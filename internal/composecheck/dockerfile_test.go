package composecheck

import (
	"debug/elf"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func loadDockerfile(t *testing.T) Dockerfile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoModule(t).Root, "Dockerfile"))
	require.NoError(t, err)
	d, err := ParseDockerfile(string(data))
	require.NoError(t, err)
	return d
}

// goBuild is the builder stage's `go build`: its flags, its output
// directory and the packages it builds.
type goBuild struct {
	flags    []string
	output   string
	packages []string
}

func builderGoBuild(t *testing.T, d Dockerfile) goBuild {
	t.Helper()
	args, ok := d.Stages[0].GoBuild()
	require.True(t, ok, "the first (builder) stage must RUN go build")
	var b goBuild
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "-o" && i+1 < len(args):
			b.output = args[i+1]
			i++
		case strings.HasPrefix(args[i], "-"):
			b.flags = append(b.flags, args[i])
		default:
			b.packages = append(b.packages, args[i])
		}
	}
	require.True(t, strings.HasSuffix(b.output, "/"), "go build -o must name a directory (ending in /) to build several programs: %q", b.output)
	return b
}

// builtPrograms maps each binary the image holds to its main package.
func builtPrograms(t *testing.T) map[string]string {
	t.Helper()
	m := repoModule(t)
	programs := make(map[string]string)
	for _, pkg := range builderGoBuild(t, loadDockerfile(t)).packages {
		rel := strings.TrimPrefix(path.Clean(pkg), "./")
		programs[path.Base(rel)] = m.Path + "/" + rel
	}
	return programs
}

func TestDockerfileBuildsInAGolangStageOfGoModsVersion(t *testing.T) {
	d := loadDockerfile(t)

	require.GreaterOrEqual(t, len(d.Stages), 2, "a builder stage and a final stage")
	builder := ParseImageRef(d.Stages[0].Image)
	require.Equal(t, "golang", builder.Repository)
	require.Equal(t, repoModule(t).GoVersion, strings.SplitN(builder.Tag, "-", 2)[0],
		"the builder's Go is the go directive of go.mod")
	require.Equal(t, "0", d.Stages[0].Env()["CGO_ENABLED"], "static binaries need CGO_ENABLED=0")
}

func TestDockerfileBuildsEveryProgramTheComposeServicesRun(t *testing.T) {
	programs := builtPrograms(t)
	project := mustLoadCompose(t, nil)

	for _, s := range builtServices(project) {
		require.NotEmpty(t, s.Command, "service %s must name its program", s.Name)
		require.Contains(t, programs, s.Command[0], "service %s runs %q, which the Dockerfile does not build", s.Name, s.Command[0])
	}
	require.Contains(t, programs, "starter", "the image carries the CLI for `docker compose run`")
}

func TestDockerfileFinalStageIsPinnedSmallAndNotRoot(t *testing.T) {
	d := loadDockerfile(t)
	final := d.Stages[len(d.Stages)-1]

	require.NoError(t, CheckPinned(final.Image))
	require.Contains(t, []string{"alpine", "gcr.io/distroless/static", "gcr.io/distroless/static-debian12", "scratch"},
		ParseImageRef(final.Image).Repository)
	user := final.User()
	require.NotEmpty(t, user, "the final stage must set USER")
	require.NotContains(t, []string{"root", "0", "0:0"}, user)
	output := builderGoBuild(t, d).output
	require.True(t, slices.ContainsFunc(final.All("COPY"), func(args string) bool {
		return strings.Contains(args, "--from="+d.Stages[0].Name) && strings.Contains(args, output)
	}), "the final stage copies the binaries from the builder's %s", output)
}

// TestDockerfileBuildCommandMakesStaticBinaries runs the builder stage's own
// go build here (no Docker engine on this machine) and reads the binaries.
func TestDockerfileBuildCommandMakesStaticBinaries(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every program")
	}
	d := loadDockerfile(t)
	b := builderGoBuild(t, d)
	out := t.TempDir()

	args := append(append([]string{"build"}, b.flags...), "-o", out+"/")
	cmd := exec.Command("go", append(args, b.packages...)...)
	cmd.Dir = repoModule(t).Root
	cmd.Env = os.Environ()
	for key, value := range d.Stages[0].Env() {
		cmd.Env = append(cmd.Env, key+"="+value)
	}
	output, err := cmd.CombinedOutput()
	require.NoError(t, err, "go %s\n%s", strings.Join(cmd.Args[1:], " "), output)

	for binary := range builtPrograms(t) {
		f, err := elf.Open(filepath.Join(out, binary))
		require.NoError(t, err, "the build must produce %s", binary)
		for _, prog := range f.Progs {
			require.NotEqual(t, elf.PT_INTERP, prog.Type, "%s asks for a dynamic loader", binary)
		}
		libs, err := f.ImportedLibraries()
		require.NoError(t, err)
		require.Empty(t, libs, "%s links shared libraries", binary)
		require.NoError(t, f.Close())
	}
}

func TestParseDockerfileJoinsContinuationsAndNamesStages(t *testing.T) {
	d, err := ParseDockerfile("# syntax=docker/dockerfile:1\nARG V=1\nFROM golang:1.26.8 AS builder\n" +
		"ENV CGO_ENABLED=0 GOFLAGS=-trimpath\nRUN --mount=type=cache,target=/x \\\n    go build -o /out/ ./a \\\n    ./b\n" +
		"FROM --platform=linux/amd64 alpine:3.22.1\nUSER app\nUSER 10001\n")

	require.NoError(t, err)
	require.Len(t, d.Stages, 2)
	require.Equal(t, "builder", d.Stages[0].Name)
	require.Equal(t, map[string]string{"CGO_ENABLED": "0", "GOFLAGS": "-trimpath"}, d.Stages[0].Env())
	args, ok := d.Stages[0].GoBuild()
	require.True(t, ok)
	require.Equal(t, []string{"-o", "/out/", "./a", "./b"}, args)
	require.Equal(t, "alpine:3.22.1", d.Stages[1].Image)
	require.Equal(t, "10001", d.Stages[1].User())
}

func TestCheckPinnedRefusesMovingTags(t *testing.T) {
	for _, ref := range []string{"postgres:16.4", "temporalio/admin-tools:1.29.1-tctl-1.18.4-cli-1.5.0",
		"localhost:5000/agentrun:1.2.3", "alpine@sha256:4bcff63911fcb4448bd4fdacec207030997caf25e9"} {
		require.NoError(t, CheckPinned(ref), ref)
	}
	for _, ref := range []string{"postgres", "postgres:latest", "postgres:16", "golang:alpine", "localhost:5000/agentrun"} {
		require.Error(t, CheckPinned(ref), ref)
	}
}
