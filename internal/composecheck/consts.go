package composecheck

import (
	"go/ast"
	"go/token"
	"strconv"
)

// maxConstDepth bounds the chain of constants a variable name goes through.
const maxConstDepth = 16

// constDecl keeps the file of a constant so that a selector in its value
// resolves against that file's imports.
type constDecl struct {
	value ast.Expr
	file  *ast.File
}

// collectConsts adds the package-level constants of file that have an
// explicit value (the repeated-expression form is never a string name).
func collectConsts(file *ast.File, consts map[string]constDecl) {
	for _, decl := range file.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.CONST {
			continue
		}
		for _, spec := range gen.Specs {
			value, ok := spec.(*ast.ValueSpec)
			if !ok || len(value.Values) != len(value.Names) {
				continue
			}
			for i, name := range value.Names {
				consts[name.Name] = constDecl{value: value.Values[i], file: file}
			}
		}
	}
}

// stringValue evaluates a string constant expression: literals, constants of
// the package or of another module package, and their concatenations.
func (s *programScanner) stringValue(pkg *sourcePackage, file *ast.File, expr ast.Expr, depth int) (string, bool) {
	if depth > maxConstDepth {
		return "", false
	}
	switch e := expr.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return "", false
		}
		v, err := strconv.Unquote(e.Value)
		return v, err == nil
	case *ast.ParenExpr:
		return s.stringValue(pkg, file, e.X, depth+1)
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return "", false
		}
		left, okLeft := s.stringValue(pkg, file, e.X, depth+1)
		right, okRight := s.stringValue(pkg, file, e.Y, depth+1)
		return left + right, okLeft && okRight
	case *ast.Ident:
		decl, ok := pkg.consts[e.Name]
		if !ok {
			return "", false
		}
		return s.stringValue(pkg, decl.file, decl.value, depth+1)
	case *ast.SelectorExpr:
		other, ok := s.importedPackage(file, e.X)
		if !ok {
			return "", false
		}
		decl, ok := other.consts[e.Sel.Name]
		if !ok {
			return "", false
		}
		return s.stringValue(other, decl.file, decl.value, depth+1)
	}
	return "", false
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
