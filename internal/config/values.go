package config

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// The checks below are the ones several programs' settings share; each
// returns an error that Read prefixes with the variable.

// NoWhitespace refuses a value with a space or a control character: a token
// pasted with its trailing newline fails every call with a 401 that says
// nothing about why.
func NoWhitespace(v string) error {
	if strings.ContainsFunc(v, isSpaceOrControl) {
		return errors.New("contains whitespace (a pasted newline?)")
	}
	return nil
}

func isSpaceOrControl(r rune) bool { return r <= ' ' || r == 0x7f }

// HTTPURL accepts an absolute http(s) URL with a host and no credentials,
// or nothing. It never quotes a URL that carries a password.
func HTTPURL(v string) error {
	if v == "" {
		return nil
	}
	u, err := url.Parse(v)
	if err != nil {
		// url.Error repeats the whole URL, which may hold a password that
		// could not be parsed out; the cause alone says what is wrong.
		var urlErr *url.Error
		if errors.As(err, &urlErr) {
			err = urlErr.Err
		}
		return fmt.Errorf("not a URL: %w", err)
	}
	if u.User != nil {
		return errors.New("must not carry credentials; give the token its own variable")
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an absolute http:// or https:// URL", v)
	}
	return nil
}

// Flag reads a switch: 1 or true, 0 or false (or unset).
func Flag(v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "0", "false":
		return false, nil
	case "1", "true":
		return true, nil
	}
	return false, fmt.Errorf("%q: want 1 or 0", v)
}
