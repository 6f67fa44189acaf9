// Package settings is the ghsandbox command's table of settings. It sits
// beside the main, in a package of its own, so that internal/composecheck
// can import it.
package settings

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/golang-jwt/jwt/v4"

	"github.com/agentrun/agentrun/internal/config"
	"github.com/agentrun/agentrun/internal/ghsandbox"
)

// DefaultAddr is where the sandbox listens unless SANDBOX_ADDR says otherwise.
const DefaultAddr = "127.0.0.1:9090"

// Config is what the ghsandbox command reads from its environment.
type Config struct {
	Addr        string
	FixturePath string
	StatePath   string
	// App is the GitHub App the sandbox speaks for (SANDBOX_APP_*); a zero
	// ID leaves it without one.
	App ghsandbox.App
	// Webhook is where pull request events (POST
	// /_sandbox/pulls/{owner}/{repo}/{number}/events) are delivered.
	Webhook ghsandbox.Webhook
}

// Settings is every variable the ghsandbox command reads.
func Settings() config.Table[Config] {
	return config.Table[Config]{
		Program: "ghsandbox",
		Settings: []config.Setting[Config]{
			{Name: "SANDBOX_ADDR", Default: DefaultAddr, Description: "the fake GitHub's listen address", Parse: parseAddr},
			{Name: "SANDBOX_FIXTURE", Description: "a fixture JSON file to seed it from; default the embedded acme/widgets",
				Parse: func(c *Config, v string) error { c.FixturePath = v; return nil }},
			{Name: "SANDBOX_STATE", Description: "a file the comments are loaded from at start and saved to after every change; default in memory",
				Parse: func(c *Config, v string) error { c.StatePath = v; return nil }},
			{Name: "SANDBOX_APP_ID", Description: "speak for a GitHub App of this ID (app mode, docs/github-app.md): GET /app, installation tokens; needs SANDBOX_APP_KEY_FILE",
				Parse: parseAppID},
			{Name: "SANDBOX_APP_KEY_FILE", Description: "the app's key, PEM: a public key, or the private key the worker's GITHUB_APP_PRIVATE_KEY_FILE names (only its public half is used); JWTs are verified against it",
				Parse: parseAppKeyFile},
			{Name: "SANDBOX_APP_SLUG", Default: "agentrun", Description: "the app's slug; its bot posts as SLUG[bot]",
				Parse: func(c *Config, v string) error { c.App.Slug = v; return nil }},
			{Name: "SANDBOX_WEBHOOK_URL", Description: "where pull_request and check_run requested_action deliveries go, as GitHub sends them (the approval server's /github/webhook); default none",
				Parse: func(c *Config, v string) error { c.Webhook.URL = v; return config.HTTPURL(v) }},
			{Name: "SANDBOX_WEBHOOK_SECRET", Secret: true, Description: "signs those deliveries (X-Hub-Signature-256): the approval server's GITHUB_WEBHOOK_SECRET",
				Parse: func(c *Config, v string) error { c.Webhook.Secret = v; return nil }},
			{Name: "SANDBOX_APP_TOKEN_LIFETIME", Default: ghsandbox.DefaultTokenLifetime.String(), Description: "how long an installation token lives",
				Parse: parseTokenLifetime},
		},
		Finish: func(c *Config, _ func(string) string) error {
			if (c.App.ID != 0) != (c.App.PublicKey != nil) {
				return errors.New("SANDBOX_APP_ID and SANDBOX_APP_KEY_FILE go together: set both for an app, or neither")
			}
			return nil
		},
	}
}

func parseAppID(c *Config, v string) error {
	if v == "" {
		return nil
	}
	id, err := strconv.ParseInt(v, 10, 64)
	if err != nil || id <= 0 {
		return fmt.Errorf("%q is not an app ID (a positive number)", v)
	}
	c.App.ID = id
	return nil
}

func parseAppKeyFile(c *Config, v string) error {
	if v == "" {
		return nil
	}
	raw, err := os.ReadFile(v)
	if err != nil {
		return err
	}
	if key, err := jwt.ParseRSAPublicKeyFromPEM(raw); err == nil {
		c.App.PublicKey = key
		return nil
	}
	key, err := jwt.ParseRSAPrivateKeyFromPEM(raw)
	if err != nil {
		return fmt.Errorf("%s holds no RSA key in PEM", v)
	}
	c.App.PublicKey = &key.PublicKey
	return nil
}

func parseTokenLifetime(c *Config, v string) error {
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return fmt.Errorf("%q is not a positive duration (1h, 90s)", v)
	}
	c.App.TokenLifetime = d
	return nil
}

func parseAddr(c *Config, v string) error {
	if _, _, err := net.SplitHostPort(v); err != nil {
		return fmt.Errorf("%q is not host:port: %w", v, err)
	}
	c.Addr = v
	return nil
}
