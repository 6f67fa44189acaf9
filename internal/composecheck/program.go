package composecheck

import (
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
)

// EnvReads maps each environment variable a program reads to where it reads it.
type EnvReads map[string][]string

// Names lists the variables, sorted.
func (r EnvReads) Names() []string {
	names := make([]string, 0, len(r))
	for name := range r {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Program is what the checks know of a program from its source.
type Program struct {
	// Env is every environment variable its reachable code reads.
	Env EnvReads
	// Strings holds every string literal of its reachable code, e.g. the
	// routes it serves.
	Strings map[string]bool
}

// LoadProgram reads the program whose main package is mainImportPath: the
// code reachable from its main function through the module's packages. Test
// files and packages outside the module are not read, so a library that
// reads the environment on its own is not seen.
//
// Reachability is syntactic, and errs on the side of too much: a function
// counts once its name is mentioned in reached code; every method counts,
// since interfaces and reflection (Temporal registers activities that way)
// call methods without naming them; init functions and package-level
// variable initialisers count. So a package imported for one function does
// not lend the program the variables its other functions read.
//
// An environment read is a call of os.Getenv, os.LookupEnv, or of a function
// value named getenv or lookupEnv (the mains pass os.Getenv down as one)
// whose argument is a string constant. A read whose name is not a constant
// makes LoadProgram fail: the check could not tell which variable it is.
func (m Module) LoadProgram(mainImportPath string) (Program, error) {
	s := &programScanner{
		module:   m,
		fset:     token.NewFileSet(),
		packages: make(map[string]*sourcePackage),
		funcs:    make(map[funcKey]codeUnit),
		reached:  make(map[ast.Node]bool),
		program:  Program{Env: make(EnvReads), Strings: make(map[string]bool)},
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
	if len(s.unresolved) > 0 {
		return Program{}, errors.Join(s.unresolved...)
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
	module     Module
	fset       *token.FileSet
	packages   map[string]*sourcePackage // by import path
	funcs      map[funcKey]codeUnit      // package-level functions
	reached    map[ast.Node]bool
	queue      []codeUnit
	program    Program
	unresolved []error
}

type sourcePackage struct {
	path    string
	name    string
	files   []*ast.File
	imports []string
	consts  map[string]constDecl
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
		case *ast.CallExpr:
			if readsEnv(n) && len(n.Args) > 0 {
				s.recordEnvRead(unit, n)
			}
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

func (s *programScanner) recordEnvRead(unit codeUnit, call *ast.CallExpr) {
	pos := s.position(call.Pos())
	name, ok := s.stringValue(unit.pkg, unit.file, call.Args[0], 0)
	if !ok {
		s.unresolved = append(s.unresolved, fmt.Errorf("%s: reads an environment variable whose name is not a string constant", pos))
		return
	}
	s.program.Env[name] = append(s.program.Env[name], pos)
}

func (s *programScanner) position(p token.Pos) string {
	position := s.fset.Position(p)
	if rel, err := filepath.Rel(s.module.Root, position.Filename); err == nil {
		position.Filename = filepath.ToSlash(rel)
	}
	return fmt.Sprintf("%s:%d", position.Filename, position.Line)
}

// readsEnv tells a call of os.Getenv, os.LookupEnv or a getenv function value.
func readsEnv(call *ast.CallExpr) bool {
	var name string
	switch fun := call.Fun.(type) {
	case *ast.Ident:
		name = fun.Name
	case *ast.SelectorExpr:
		name = fun.Sel.Name
	default:
		return false
	}
	switch name {
	case "Getenv", "LookupEnv", "getenv", "lookupEnv":
		return true
	}
	return false
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
		consts:  make(map[string]constDecl),
	}
	for _, name := range built.GoFiles {
		file, err := parser.ParseFile(s.fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("parse %s: %w", name, err)
		}
		pkg.files = append(pkg.files, file)
		collectConsts(file, pkg.consts)
	}
	s.packages[importPath] = pkg
	return pkg, nil
}
