package composecheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
)

// searchAttributeType maps the SDK's typed-key constructors to the type
// names `temporal operator search-attribute create --type` takes.
func searchAttributeType(constructor string) (string, bool) {
	switch constructor {
	case "NewSearchAttributeKeyKeyword":
		return "Keyword", true
	case "NewSearchAttributeKeyString":
		return "Text", true
	case "NewSearchAttributeKeyInt64":
		return "Int", true
	case "NewSearchAttributeKeyFloat64":
		return "Double", true
	case "NewSearchAttributeKeyBool":
		return "Bool", true
	case "NewSearchAttributeKeyTime":
		return "Datetime", true
	case "NewSearchAttributeKeyKeywordList":
		return "KeywordList", true
	}
	return "", false
}

// DeclaredSearchAttributes finds the search attributes the package in dir
// declares with temporal.NewSearchAttributeKey*("Name"), by name, with the
// type the server registers them as.
func DeclaredSearchAttributes(dir string) (map[string]string, error) {
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	declared := make(map[string]string)
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("parse %s: %w", path, err)
		}
		var bad error
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			typ, ok := searchAttributeType(sel.Sel.Name)
			if !ok || len(call.Args) == 0 {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				bad = fmt.Errorf("%s: search attribute named by a non-literal", fset.Position(call.Pos()))
				return false
			}
			name, err := strconv.Unquote(lit.Value)
			if err != nil {
				bad = fmt.Errorf("%s: %w", fset.Position(lit.Pos()), err)
				return false
			}
			declared[name] = typ
			return true
		})
		if bad != nil {
			return nil, bad
		}
	}
	return declared, nil
}
