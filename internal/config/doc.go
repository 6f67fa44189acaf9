package config

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Var is what the docs and the compose check know of a setting: all of it
// but how it is parsed.
type Var struct {
	Name        string
	Default     string
	Description string
	Secret      bool
	// File is the variable naming the secret's file when it is not
	// Name+FileSuffix (FileVar answers for both).
	File string
	// Required tells a setting that may not be left unset, at least in the
	// case RequiredWhen describes ("" for always).
	Required     bool
	RequiredWhen string
}

// Vars lists the table's settings in its order.
func (t Table[C]) Vars() []Var {
	vars := make([]Var, len(t.Settings))
	for i, s := range t.Settings {
		vars[i] = Var{Name: s.Name, Default: s.Default, Description: s.Description, Secret: s.Secret, File: s.File,
			Required: s.Required != nil, RequiredWhen: s.RequiredWhen}
	}
	return vars
}

// FileVar is the variable naming a secret's file.
func (v Var) FileVar() string {
	if v.File != "" {
		return v.File
	}
	return v.Name + FileSuffix
}

// WriteHelp lists the table's settings for a program's --help.
func (t Table[C]) WriteHelp(w io.Writer) error {
	if _, err := fmt.Fprintf(w, "%s reads these environment variables (empty counts as unset):\n\n", t.Program); err != nil {
		return fmt.Errorf("write help: %w", err)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, v := range t.Vars() {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", v.Name, v.defaultText(), v.Description)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write help: %w", err)
	}
	if t.hasSecret() {
		if _, err := fmt.Fprintf(w, "\nA secret may instead be read from a file: NAME%s=/path (not both; one trailing newline is dropped).\n", FileSuffix); err != nil {
			return fmt.Errorf("write help: %w", err)
		}
	}
	return nil
}

func (t Table[C]) hasSecret() bool {
	for _, s := range t.Settings {
		if s.Secret {
			return true
		}
	}
	return false
}

// defaultText is the default column: the value, or what it takes to leave
// the variable unset.
func (v Var) defaultText() string {
	var parts []string
	switch {
	case v.Required && v.RequiredWhen == "":
		parts = append(parts, "required")
	case v.Required:
		parts = append(parts, "required "+v.RequiredWhen)
	case v.Default != "":
		parts = append(parts, "default "+v.Default)
	default:
		parts = append(parts, "optional")
	}
	if v.Secret && v.File != "" {
		parts = append(parts, "secret, or a file: "+v.File)
	} else if v.Secret {
		parts = append(parts, "secret")
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// PrintHelp lists the table's settings on w when args, the arguments of a
// program configured only by its environment, ask for them (-h, -help or
// --help alone), and tells whether they did.
func (t Table[C]) PrintHelp(args []string, w io.Writer) bool {
	if len(args) != 1 || (args[0] != "-h" && args[0] != "-help" && args[0] != "--help") {
		return false
	}
	_ = t.WriteHelp(w) // the terminal is gone: nothing left to tell
	return true
}
