package config

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// FileSuffix names the variable that holds the path of a secret's file:
// GITHUB_TOKEN_FILE for GITHUB_TOKEN. A secret in a file (a mounted
// Kubernetes or Docker secret) never enters the process environment, so no
// child can inherit it and no process reading the environment at exec finds it.
const FileSuffix = "_FILE"

// maxSecretFile bounds a secret file's read: a path mistyped as /dev/zero or
// a log file must stop start-up, not fill the memory.
const maxSecretFile = 1 << 20

// secretValue is a secret setting's value: its variable, or the content of
// the file its _FILE variable names, less one trailing newline (what an
// editor or `echo` leaves). Both set is an error, since either could be the
// one the operator meant.
func (s Setting[C]) secretValue(getenv func(string) string) (string, error) {
	fileVar := s.fileVar()
	v, path := getenv(s.Name), getenv(fileVar)
	switch {
	case path == "":
		return v, nil
	case v != "":
		return "", &Error{msg: fmt.Sprintf("both %s and %s are set: set one", s.Name, fileVar)}
	}
	content, err := readSecretFile(path)
	if err != nil {
		return "", &Error{Name: fileVar, msg: fmt.Sprintf("the file of %s: %v", s.Name, err), err: err}
	}
	return content, nil
}

// fileVar is the variable naming the secret's file.
func (s Setting[C]) fileVar() string {
	if s.File != "" {
		return s.File
	}
	return s.Name + FileSuffix
}

func readSecretFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSecretFile+1))
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	if len(b) > maxSecretFile {
		return "", fmt.Errorf("%s is over %d bytes: not a secret file", path, maxSecretFile)
	}
	v := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	if v == "" {
		return "", errors.New(path + " is empty")
	}
	return v, nil
}

// TakeEnvironment hands the table's Read the process environment as it is
// now, and removes the table's secrets (and their _FILE paths) from it, so
// that a child started with the inherited environment (an exec.Cmd whose Env
// is nil) never receives them. A main calls it once, first.
//
// It cannot reach the copy the kernel keeps at /proc/<pid>/environ: that is
// what startup.MakeNonDumpable closes.
func (t Table[C]) TakeEnvironment() (func(string) string, error) {
	env := make(map[string]string)
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	var errs []error
	for _, s := range t.Settings {
		if !s.Secret {
			continue
		}
		for _, name := range []string{s.Name, s.fileVar()} {
			if err := os.Unsetenv(name); err != nil {
				errs = append(errs, fmt.Errorf("unset %s: %w", name, err))
			}
		}
	}
	return func(name string) string { return env[name] }, errors.Join(errs...)
}
