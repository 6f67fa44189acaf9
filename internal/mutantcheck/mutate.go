package main

import (
	"errors"
	"fmt"
	"go/scanner"
	"go/token"
)

// replacements are gremlins' mutator types (v0.6.0) and, for each, the
// token it turns into which: the source of a mutant is the file with that
// one token replaced.
var replacements = map[string]map[token.Token]token.Token{
	"ARITHMETIC_BASE":       {token.ADD: token.SUB, token.SUB: token.ADD, token.MUL: token.QUO, token.QUO: token.MUL, token.REM: token.MUL},
	"CONDITIONALS_BOUNDARY": {token.LSS: token.LEQ, token.LEQ: token.LSS, token.GTR: token.GEQ, token.GEQ: token.GTR},
	"CONDITIONALS_NEGATION": {token.EQL: token.NEQ, token.NEQ: token.EQL, token.LSS: token.GEQ, token.GEQ: token.LSS, token.GTR: token.LEQ, token.LEQ: token.GTR},
	"INCREMENT_DECREMENT":   {token.INC: token.DEC, token.DEC: token.INC},
	"INVERT_NEGATIVES":      {token.SUB: token.ADD},
	"INVERT_LOGICAL":        {token.LAND: token.LOR, token.LOR: token.LAND},
	"INVERT_LOOPCTRL":       {token.BREAK: token.CONTINUE, token.CONTINUE: token.BREAK},
	"INVERT_ASSIGNMENTS":    {token.ADD_ASSIGN: token.SUB_ASSIGN, token.SUB_ASSIGN: token.ADD_ASSIGN, token.MUL_ASSIGN: token.QUO_ASSIGN, token.QUO_ASSIGN: token.MUL_ASSIGN},
	"INVERT_BITWISE":        {token.AND: token.OR, token.OR: token.AND, token.XOR: token.AND, token.AND_NOT: token.AND, token.SHL: token.SHR, token.SHR: token.SHL},
	"REMOVE_SELF_ASSIGNMENTS": {
		token.ADD_ASSIGN: token.ASSIGN, token.SUB_ASSIGN: token.ASSIGN, token.MUL_ASSIGN: token.ASSIGN, token.QUO_ASSIGN: token.ASSIGN,
		token.REM_ASSIGN: token.ASSIGN, token.AND_ASSIGN: token.ASSIGN, token.OR_ASSIGN: token.ASSIGN, token.XOR_ASSIGN: token.ASSIGN,
		token.SHL_ASSIGN: token.ASSIGN, token.SHR_ASSIGN: token.ASSIGN, token.AND_NOT_ASSIGN: token.ASSIGN,
	},
	"INVERT_BITWISE_ASSIGNMENTS": {
		token.AND_ASSIGN: token.OR_ASSIGN, token.OR_ASSIGN: token.AND_ASSIGN, token.XOR_ASSIGN: token.AND_ASSIGN,
		token.AND_NOT_ASSIGN: token.AND_ASSIGN, token.SHL_ASSIGN: token.SHR_ASSIGN, token.SHR_ASSIGN: token.SHL_ASSIGN,
	},
}

// errStale is a position that holds no token its mutator type mutates: the
// report is of another version of the file.
var errStale = errors.New("stale position")

// Mutate is src with the token at line and column (1-based, in bytes, as
// gremlins reports them) replaced as mutator kind replaces it. A position
// that holds no token the kind mutates is an error: the report is of
// another version of the file.
func Mutate(src []byte, kind string, line, column int) ([]byte, error) {
	table, ok := replacements[kind]
	if !ok {
		return nil, fmt.Errorf("unknown mutator type %q", kind)
	}
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(src))
	var s scanner.Scanner
	s.Init(file, src, nil, 0)
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return nil, fmt.Errorf("%w: no token at %d:%d", errStale, line, column)
		}
		p := fset.Position(pos)
		if p.Line < line || p.Line == line && p.Column < column {
			continue
		}
		if p.Line != line || p.Column != column {
			return nil, fmt.Errorf("%w: no token at %d:%d", errStale, line, column)
		}
		to, ok := table[tok]
		if !ok {
			return nil, fmt.Errorf("%w: %d:%d holds %q, which %s does not mutate", errStale, line, column, tokenText(tok, lit), kind)
		}
		off := file.Offset(pos)
		out := make([]byte, 0, len(src)+2)
		out = append(out, src[:off]...)
		out = append(out, to.String()...)
		return append(out, src[off+len(tok.String()):]...), nil
	}
}

func tokenText(tok token.Token, lit string) string {
	if lit != "" {
		return lit
	}
	return tok.String()
}
