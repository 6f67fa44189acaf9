package e2e

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/agentrun/agentrun/internal/testkit"
)

// mains are the packages a test needs as processes, built in one go build.
var mains = []string{"./worker", "./starter", "./internal/ghsandbox/cmd/ghsandbox", "./approval"}

// Binaries are the paths of the built mains.
type Binaries struct {
	Worker   string
	Starter  string
	Sandbox  string
	Approval string
}

// Builder builds the mains into a directory at most once per test binary,
// and only when a test asks for them, so that a `go test -run` that selects
// no test here does not pay for the build.
type Builder struct {
	dir  string
	once sync.Once
	bins Binaries
	err  error

	mu       sync.Mutex
	programs map[string]*program
}

// program is one more program a test builds, at most once.
type program struct {
	once sync.Once
	bin  string
	err  error
}

// NewBuilder builds into dir, which the caller creates and removes.
func NewBuilder(dir string) *Builder { return &Builder{dir: dir} }

// Binaries builds the mains on first use and fails the test if they do not build.
func (b *Builder) Binaries(t testing.TB) Binaries {
	t.Helper()
	b.once.Do(func() { b.bins, b.err = build(b.dir) })
	if b.err != nil {
		t.Fatalf("build the mains: %v", b.err)
	}
	return b.bins
}

func build(dir string) (Binaries, error) {
	root, err := testkit.RepoRoot()
	if err != nil {
		return Binaries{}, err
	}
	args := append([]string{"build", "-o", dir + string(filepath.Separator)}, mains...)
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return Binaries{}, fmt.Errorf("go %v: %w\n%s", args, err, out)
	}
	return Binaries{
		Worker:   filepath.Join(dir, "worker"),
		Starter:  filepath.Join(dir, "starter"),
		Sandbox:  filepath.Join(dir, "ghsandbox"),
		Approval: filepath.Join(dir, "approval"),
	}, nil
}

// Program builds package pkg of the module in dir (a path from the
// repository root) as name, on first use, and fails the test if it does not
// build. It goes next to the mains, in the directory the caller removes: a
// test's own TempDir would go with the first test that built it.
func (b *Builder) Program(t testing.TB, name, dir, pkg string) string {
	t.Helper()
	b.mu.Lock()
	if b.programs == nil {
		b.programs = map[string]*program{}
	}
	p, ok := b.programs[name]
	if !ok {
		p = &program{}
		b.programs[name] = p
	}
	b.mu.Unlock()
	p.once.Do(func() { p.bin, p.err = buildProgram(filepath.Join(b.dir, name), dir, pkg) })
	if p.err != nil {
		t.Fatalf("build %s: %v", name, p.err)
	}
	return p.bin
}

func buildProgram(bin, dir, pkg string) (string, error) {
	root, err := testkit.RepoRoot()
	if err != nil {
		return "", err
	}
	cmd := exec.Command("go", "build", "-o", bin, pkg)
	cmd.Dir = filepath.Join(root, dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s in %s: %w\n%s", pkg, dir, err, out)
	}
	return bin, nil
}
