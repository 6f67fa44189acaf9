package composecheck

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
)

// Program is what the checks know of a program from its source.
type Program struct {
	// Strings holds every string literal of its reachable code, e.g. the
	// routes it serves.
	Strings map[string]bool
}

// LoadProgram reads the program whose main package is mainImportPath: the
// code reachable from its main function through the module's packages. Test
// files and packages outside the module are not read. (The environment a
// program reads is its settings table, not something to find in its code.)
//
// Reachability is syntactic, and errs on the side of too much: a function
// counts once its name is mentioned in reached code; every method counts,
// since interfaces and reflection (Temporal registers activities that way)
// call methods without naming them; init functions and package-level
// variable initialisers count. So a package imported for one function does
// not lend the program the routes its other functions serve.
func (m Module) LoadProgram(mainImportPath string) (Program, error) {
	s := &programScanner{
		module:   m,
		fset:     token.NewFileSet(),
		packages: make(map[string]*sourcePackage),
		funcs:    make(map[funcKey]codeUnit),
		reached:  make(map[ast.Node]bool),
		program:  Program{Strings: make(map[string]bool)},
	}
	if err := s.loadClosure(mainImportPath); err != nil {
		return Program{}, err
	}
	mainFunc, ok := s.funcs[funcKey{mainImportPath, "main"}]
	if !ok {
		return Program{}, fmt.Errorf("%s has no main function", mainImportPath)
	}
	s.reach(mainFunc)
	for len(s.queue) > 0 {
		unit := s.queue[0]
		s.queue = s.queue[1:]
		s.walk(unit)
	}
	return s.program, nil
}

type funcKey struct{ pkg, name string }

// codeUnit is code to walk once reached: a function or method declaration,
// or a package-level variable declaration.
type codeUnit struct {
	pkg  *sourcePackage
	file *ast.File
	node ast.Node
}

type programScanner struct {
	module   Module
	fset     *token.FileSet
	packages map[string]*sourcePackage // by import path
	funcs    map[funcKey]codeUnit      // package-level functions
	reached  map[ast.Node]bool
	queue    []codeUnit
	program  Program
}

type sourcePackage struct {
	path    string
	name    string
	files   []*ast.File
	imports []string
}

// loadClosure loads the package and every module package it imports,
// indexing their functions and queueing what runs without being named.
func (s *programScanner) loadClosure(importPath string) error {
	if _, done := s.packages[importPath]; done {
		return nil
	}
	pkg, err := s.load(importPath)
	if err != nil {
		return err
	}
	for _, file := range pkg.files {
		s.index(pkg, file)
	}
	for _, imported := range pkg.imports {
		if _, inModule := s.module.PackageDir(imported); inModule {
			if err := s.loadClosure(imported); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *programScanner) index(pkg *sourcePackage, file *ast.File) {
	for _, decl := range file.Decls {
		unit := codeUnit{pkg: pkg, file: file, node: decl}
		switch decl := decl.(type) {
		case *ast.FuncDecl:
			switch {
			case decl.Recv != nil, decl.Name.Name == "init":
				s.reach(unit)
			default:
				s.funcs[funcKey{pkg.path, decl.Name.Name}] = unit
			}
		case *ast.GenDecl:
			if decl.Tok == token.VAR {
				s.reach(unit)
			}
		}
	}
}

func (s *programScanner) reach(unit codeUnit) {
	if s.reached[unit.node] {
		return
	}
	s.reached[unit.node] = true
	s.queue = append(s.queue, unit)
}

func (s *programScanner) walk(unit codeUnit) {
	var visit func(ast.Node) bool
	visit = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BasicLit:
			if v, err := strconv.Unquote(n.Value); n.Kind == token.STRING && err == nil {
				s.program.Strings[v] = true
			}
		case *ast.Ident:
			if fn, ok := s.funcs[funcKey{unit.pkg.path, n.Name}]; ok {
				s.reach(fn)
			}
		case *ast.SelectorExpr:
			if other, ok := s.importedPackage(unit.file, n.X); ok {
				if fn, ok := s.funcs[funcKey{other.path, n.Sel.Name}]; ok {
					s.reach(fn)
				}
				return false
			}
			// A method or a field: methods are all reached already, and
			// the selector's Sel is not a function of this package.
			ast.Inspect(n.X, visit)
			return false
		}
		return true
	}
	ast.Inspect(unit.node, visit)
}

func (s *programScanner) load(importPath string) (*sourcePackage, error) {
	if pkg, ok := s.packages[importPath]; ok {
		return pkg, nil
	}
	dir, ok := s.module.PackageDir(importPath)
	if !ok {
		return nil, fmt.Errorf("%s is outside module %s", importPath, s.module.Path)
	}
	// ImportDir applies this platform's build constraints and leaves the
	// _test.go files out, as go build does.
	built, err := build.ImportDir(dir, 0)
	if err != nil {
		return nil, fmt.Errorf("load package %s: %w", importPath, err)
	}
	pkg := &sourcePackage{
		path:    importPath,
		name:    built.Name,
		imports: built.Imports,
	}
	for _, name := range built.GoFiles {
		file, err := parser.ParseFile(s.fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("parse %s: %w", name, err)
		}
		pkg.files = append(pkg.files, file)
	}
	s.packages[importPath] = pkg
	return pkg, nil
}

// importedPackage resolves x, the left of a selector, to the module package
// file imports under that name; false if x is anything else.
func (s *programScanner) importedPackage(file *ast.File, x ast.Expr) (*sourcePackage, bool) {
	ident, ok := x.(*ast.Ident)
	if !ok {
		return nil, false
	}
	for _, spec := range file.Imports {
		path, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			continue
		}
		if _, inModule := s.module.PackageDir(path); !inModule {
			continue
		}
		pkg, err := s.load(path)
		if err != nil {
			continue
		}
		name := pkg.name
		if spec.Name != nil {
			name = spec.Name.Name
		}
		if name == ident.Name {
			return pkg, true
		}
	}
	return nil, false
}
