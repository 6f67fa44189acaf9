package github

import (
	"crypto/rsa"
	"errors"
	"fmt"
	"strconv"

	"github.com/golang-jwt/jwt/v4"

	"github.com/agentrun/agentrun/internal/config"
)

// Credentials are how a process authenticates to GitHub: a token (or none,
// anonymously), or a GitHub App, whose installation tokens it mints itself.
// The worker and the approval server read them alike (Settings).
type Credentials struct {
	// APIURL is the REST root (GITHUB_API_URL); empty means api.github.com.
	APIURL string
	// Token is GITHUB_TOKEN: token mode.
	Token string
	// AppID and AppKey are GITHUB_APP_ID and the app's private key
	// (GITHUB_APP_PRIVATE_KEY_FILE or _DATA): app mode.
	AppID  int64
	AppKey *rsa.PrivateKey
}

// AppMode reports whether the credentials are a GitHub App's.
func (c Credentials) AppMode() bool { return c.AppID != 0 }

// Set reports whether any GitHub setting is there at all.
func (c Credentials) Set() bool { return c.APIURL != "" || c.Token != "" || c.AppMode() }

// Validate checks the rules across the settings: an app needs both its ID
// and its key, and a token beside an app would leave unclear which one
// acts.
func (c Credentials) Validate() error {
	switch {
	case c.AppID != 0 && c.AppKey == nil:
		return errors.New("GITHUB_APP_ID is set but the app's private key is not: set GITHUB_APP_PRIVATE_KEY_FILE (or GITHUB_APP_PRIVATE_KEY_DATA)")
	case c.AppID == 0 && c.AppKey != nil:
		return errors.New("the app's private key is set but GITHUB_APP_ID is not: set the app's ID (its settings page, \"App ID\")")
	case c.AppID != 0 && c.Token != "":
		return errors.New("both GITHUB_TOKEN and GITHUB_APP_ID are set: a GitHub App mints its own tokens; unset GITHUB_TOKEN")
	}
	return nil
}

// Settings are the GitHub variables the worker and the approval server read
// alike; field says where a program keeps them. A program's Finish calls
// Validate.
func Settings[C any](field func(c *C) *Credentials) []config.Setting[C] {
	return []config.Setting[C]{
		{Name: "GITHUB_API_URL", Description: "GitHub REST base URL: the sandbox, or GitHub Enterprise's https://HOST/api/v3/; default api.github.com",
			Parse: func(c *C, v string) error { field(c).APIURL = v; return config.HTTPURL(v) }},
		{Name: "GITHUB_TOKEN", Secret: true, Description: "GitHub token (token mode); unset calls GitHub anonymously, which cannot comment, unless GITHUB_APP_ID is set",
			Parse: func(c *C, v string) error { field(c).Token = v; return config.NoWhitespace(v) }},
		{Name: "GITHUB_APP_ID", Description: "the GitHub App's ID: app mode (docs/github-app.md), with the app's private key; installation tokens are minted per repository's installation",
			Parse: func(c *C, v string) error { return parseAppID(field(c), v) }},
		{Name: "GITHUB_APP_PRIVATE_KEY_DATA", File: "GITHUB_APP_PRIVATE_KEY_FILE", Secret: true,
			Description: "the GitHub App's private key, the PEM GitHub generated for it (app mode, with GITHUB_APP_ID)",
			Parse:       func(c *C, v string) error { return parseAppKey(field(c), v) }},
	}
}

func parseAppID(c *Credentials, v string) error {
	if v == "" {
		return nil
	}
	id, err := strconv.ParseInt(v, 10, 64)
	if err != nil || id <= 0 {
		return fmt.Errorf("%q is not an app ID (a positive number, the \"App ID\" on the app's settings page; not its client ID)", v)
	}
	c.AppID = id
	return nil
}

// parseAppKey reads the key once, so that a wrong file stops start-up
// naming its variable rather than the first request. Its error never
// quotes the key.
func parseAppKey(c *Credentials, v string) error {
	if v == "" {
		return nil
	}
	key, err := jwt.ParseRSAPrivateKeyFromPEM([]byte(v))
	if err != nil {
		return errors.New("not an RSA private key in PEM: give the .pem file GitHub generates on the app's settings page " +
			"(GITHUB_APP_PRIVATE_KEY_FILE), or its content, beginning \"-----BEGIN RSA PRIVATE KEY-----\" (GITHUB_APP_PRIVATE_KEY_DATA)")
	}
	c.AppKey = key
	return nil
}
