// Package config reads a program's settings from its environment. Each
// program declares one table of every variable it reads, beside the program;
// the table is read once at start-up into the program's typed configuration,
// rendered for --help, and compared with docker-compose.yml by
// internal/composecheck. This package is the only code that touches the
// process environment (a test holds every program to that).
package config

import (
	"fmt"
	"os"
	"slices"
	"strings"
)

// Getenv is the process environment, for a main to hand to a table's Read.
func Getenv(name string) string { return os.Getenv(name) }

// Setting is one environment variable of a program.
type Setting[C any] struct {
	// Name is the variable.
	Name string
	// Default is what an unset or empty variable means. Parse receives it;
	// for a setting without Parse it documents the shared reader's default.
	Default string
	// Description is one line for --help and the docs.
	Description string
	// Secret keeps the value out of every message, and lets the value come
	// from the file that Name+"_FILE" names instead.
	Secret bool
	// File names the variable that holds the path of the secret's file, when
	// it is not Name+FileSuffix (GITHUB_APP_PRIVATE_KEY_FILE for
	// GITHUB_APP_PRIVATE_KEY_DATA, the names GitHub's own tools use).
	File string
	// Parse checks the value and stores it into the configuration. Its error
	// need not name the variable: Read does. Nil means the table's Finish
	// reads the variable through a reader several programs share.
	Parse func(c *C, value string) error
	// Required, when not nil, makes an empty variable an error whenever it
	// returns true, asked once every setting is parsed; RequiredWhen says
	// when in words ("" for always), for the error and the docs.
	Required     func(c *C) bool
	RequiredWhen string
}

// Always is the Required of a setting that no other setting waives.
func Always[C any](*C) bool { return true }

// Table is every setting of one program.
type Table[C any] struct {
	// Program names the binary, as docker-compose.yml's command does.
	Program  string
	Settings []Setting[C]
	// Finish runs once every setting is parsed and the required ones are
	// there: readers shared between programs (the Temporal client,
	// telemetry) read their variables through get, which answers only for
	// this table's variables; and rules that span settings.
	Finish func(c *C, get func(string) string) error
}

// Read reads every setting of the table through getenv (Getenv in a main, a
// map in a test), where an empty variable counts as unset. Every error it
// returns is an *Error.
func (t Table[C]) Read(getenv func(string) string) (C, error) {
	var zero C
	c, err := t.read(getenv)
	if err != nil {
		return zero, err
	}
	return c, nil
}

func (t Table[C]) read(getenv func(string) string) (C, error) {
	var c C
	values := make(map[string]string, len(t.Settings))
	for _, s := range t.Settings {
		if _, twice := values[s.Name]; twice {
			// A bug: the second Parse would silently win over the first.
			return c, &Error{msg: fmt.Sprintf("%s's settings table lists %s twice", t.Program, s.Name)}
		}
		v := getenv(s.Name)
		if s.Secret {
			var err error
			if v, err = s.secretValue(getenv); err != nil {
				return c, err
			}
		}
		values[s.Name] = v
		if v == "" {
			v = s.Default
		}
		if s.Parse == nil {
			continue
		}
		if err := s.Parse(&c, v); err != nil {
			return c, s.wrap(err, v)
		}
	}
	if err := t.checkRequired(&c, values); err != nil {
		return c, err
	}
	finish := t.Finish
	if finish == nil {
		finish = func(*C, func(string) string) error { return nil }
	}
	var undeclared []string
	asked := make(map[string]bool)
	get := func(name string) string {
		v, ok := values[name]
		if !ok && !slices.Contains(undeclared, name) {
			undeclared = append(undeclared, name)
		}
		asked[name] = true
		return v
	}
	err := finish(&c, get)
	// Both are bugs, not bad values: the table must list exactly what the
	// program reads, or its docs and the compose check would lie.
	if len(undeclared) > 0 {
		return c, &Error{msg: fmt.Sprintf("%s reads %s, which its settings table does not list", t.Program, strings.Join(undeclared, ", "))}
	}
	if err != nil {
		return c, t.redact(err, values)
	}
	var unread []string
	for _, s := range t.Settings {
		if s.Parse == nil && !asked[s.Name] {
			unread = append(unread, s.Name)
		}
	}
	if len(unread) > 0 {
		return c, &Error{msg: fmt.Sprintf("%s's settings table lists %s, which nothing parses or reads", t.Program, strings.Join(unread, ", "))}
	}
	return c, nil
}

// checkRequired names every missing required setting at once, so that one
// attempt tells the operator everything to set.
func (t Table[C]) checkRequired(c *C, values map[string]string) error {
	var missing []string
	var when []string
	for _, s := range t.Settings {
		if s.Required == nil || values[s.Name] != "" || s.Default != "" || !s.Required(c) {
			continue
		}
		missing = append(missing, s.Name)
		if s.RequiredWhen != "" && !slices.Contains(when, s.RequiredWhen) {
			when = append(when, s.RequiredWhen)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	them := "it"
	if len(missing) > 1 {
		them = "them"
	}
	msg := fmt.Sprintf("%s not set: %s needs %s", joinNames(missing), t.Program, them)
	if len(when) > 0 {
		msg += " " + strings.Join(when, "; ")
	}
	return &Error{msg: msg}
}

func joinNames(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// wrap names the variable, and keeps a secret's value out of the message.
func (s Setting[C]) wrap(err error, value string) error {
	msg := err.Error()
	if s.Secret && value != "" {
		msg = strings.ReplaceAll(msg, value, "[redacted]")
	}
	return &Error{Name: s.Name, msg: msg, err: err}
}

// redact keeps every secret value out of an error of Finish.
func (t Table[C]) redact(err error, values map[string]string) error {
	msg := err.Error()
	for _, s := range t.Settings {
		if v := values[s.Name]; s.Secret && v != "" {
			msg = strings.ReplaceAll(msg, v, "[redacted]")
		}
	}
	return &Error{msg: msg, err: err}
}

// Error is a configuration the program must not start with: a bad value,
// named by its variable, or a rule across settings or a missing one, whose
// message names them (Name empty).
type Error struct {
	Name string
	msg  string
	err  error
}

func (e *Error) Error() string {
	if e.Name == "" || strings.HasPrefix(e.msg, e.Name) {
		return e.msg
	}
	return e.Name + ": " + e.msg
}

func (e *Error) Unwrap() error { return e.err }
