package config_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// programs are the mains whose every variable must be in their table.
var programs = []string{"./worker", "./approval", "./starter", "./internal/ghsandbox/cmd/ghsandbox"}

// configPackage is the one package allowed to touch the process environment.
const configPackage = "github.com/agentrun/agentrun/internal/config"

// envFuncs are the functions that read the process environment.
var envFuncs = map[string]map[string]bool{
	"os":      {"Getenv": true, "LookupEnv": true, "Environ": true, "ExpandEnv": true},
	"syscall": {"Getenv": true, "Environ": true},
}

// TestNoProgramReadsTheEnvironmentBehindItsTable walks every package of this
// module that the programs link and fails on any use of os.Getenv and its
// kin outside internal/config: a call, or the function passed as a value.
// Every other variable reaches a program through its table's Read, which
// refuses names the table does not list.
func TestNoProgramReadsTheEnvironmentBehindItsTable(t *testing.T) {
	root := moduleRoot(t)
	cmd := exec.Command("go", append([]string{"list", "-deps", "-f",
		`{{if not .Standard}}{{.ImportPath}}|{{.Dir}}|{{join .GoFiles ","}}{{end}}`}, programs...)...)
	cmd.Dir = root
	out, err := cmd.Output()
	require.NoError(t, err)

	var scanned int
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.Split(line, "|")
		if len(parts) != 3 || !strings.HasPrefix(parts[0], "github.com/agentrun/agentrun") || parts[0] == configPackage {
			continue
		}
		for _, name := range strings.Split(parts[2], ",") {
			if name == "" {
				continue
			}
			path := filepath.Join(parts[1], name)
			reads, err := envReads(path, nil)
			require.NoError(t, err)
			require.Empty(t, reads, "%s reads the environment itself; declare the variable in its program's table", path)
			scanned++
		}
	}
	require.Greater(t, scanned, 50, "the programs' own packages were scanned")
}

// The scanner must see through what a hurried edit would write.
func TestEnvReadsFindsRenamedImportsAndFunctionValues(t *testing.T) {
	src := `package p

import (
	sys "os"
	"syscall"
	"strings"
)

var lookup = sys.LookupEnv

func f() string {
	v, _ := syscall.Getenv("B")
	return sys.Getenv("A") + v + strings.Join(sys.Environ(), "")
}

type os struct{ Getenv func(string) string }

func g(os os) string { return os.Getenv("NOT_AN_ENV_READ") }
`
	reads, err := envReads("p.go", []byte(src))

	require.NoError(t, err)
	require.Equal(t, []string{"p.go:9: os.LookupEnv", "p.go:12: syscall.Getenv", "p.go:13: os.Getenv", "p.go:13: os.Environ"}, reads)
}

// envReads lists where file (src when not nil) uses an environment reader.
func envReads(path string, src []byte) ([]string, error) {
	fset := token.NewFileSet()
	var source any // a nil []byte in an interface would read as an empty file
	if src != nil {
		source = src
	}
	file, err := parser.ParseFile(fset, path, source, 0)
	if err != nil {
		return nil, err
	}
	imported := make(map[string]string) // local name -> import path
	for _, spec := range file.Imports {
		p, err := strconv.Unquote(spec.Path.Value)
		if err != nil || envFuncs[p] == nil {
			continue
		}
		name := p
		if spec.Name != nil {
			name = spec.Name.Name
		}
		imported[name] = p
	}
	var reads []string
	ast.Inspect(file, func(n ast.Node) bool {
		if read, ok := envRead(n, imported); ok {
			pos := fset.Position(n.Pos())
			reads = append(reads, fmt.Sprintf("%s:%d: %s", pos.Filename, pos.Line, read))
		}
		return true
	})
	return reads, nil
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	require.NoError(t, err)
	return filepath.Dir(strings.TrimSpace(string(out)))
}

// envRead tells a selector naming an environment reader of an imported
// package. With object resolution a package name stays unresolved (Obj
// nil), while a local variable that shadows it is bound.
func envRead(n ast.Node, imported map[string]string) (string, bool) {
	sel, ok := n.(*ast.SelectorExpr)
	if !ok {
		return "", false
	}
	ident, ok := sel.X.(*ast.Ident)
	if !ok || ident.Obj != nil {
		return "", false
	}
	p, ok := imported[ident.Name]
	if !ok || !envFuncs[p][sel.Sel.Name] {
		return "", false
	}
	return p + "." + sel.Sel.Name, true
}
