package openai

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
)

// Provider is this provider's MODEL_PROVIDER value.
const Provider = "openai"

// Variables the worker reads the provider's Config from, once, at start-up.
const (
	EnvBaseURL = "OPENAI_BASE_URL"
	EnvAPIKey  = "OPENAI_API_KEY"
	EnvModel   = "OPENAI_MODEL"
	EnvOrg     = "OPENAI_ORG"
)

// DefaultBaseURL is OpenAI's own API. Ollama, vLLM, LM Studio or a
// gateway set OPENAI_BASE_URL to their /v1 endpoint instead.
const DefaultBaseURL = "https://api.openai.com/v1"

// Config configures the OpenAI-compatible chat-completions provider.
// Its String, GoString and LogValue hide APIKey, so printing or logging the
// configuration never reveals the key.
type Config struct {
	BaseURL string
	// APIKey is sent as a bearer token and used for nothing else: it never
	// enters a Decision, an error or a log.
	APIKey string
	// Model has no default: the right name depends on the account or on what
	// the compatible server serves, and a silent guess could cost money.
	Model        string
	Organization string
	// HTTPClient carries the requests; nil means a plain client whose only
	// deadline is the activity's context.
	HTTPClient *http.Client
}

// Validate checks every field, naming the variable the worker reads it from
// (internal/agentworker's config reader fills Config from them), so that a
// bad value stops start-up with the name to fix. New validates again, for
// callers that build a Config themselves.
func (c Config) Validate() error {
	if err := ValidateBaseURL(EnvBaseURL, c.BaseURL); err != nil {
		return err
	}
	if c.APIKey == "" {
		return fmt.Errorf("%s: required when MODEL_PROVIDER=%s (a server that ignores keys, such as Ollama, accepts any value)",
			EnvAPIKey, Provider)
	}
	// The key itself is never quoted: the message may reach a terminal or a log.
	if strings.ContainsFunc(c.APIKey, isSpaceOrControlRune) {
		return fmt.Errorf("%s: contains whitespace (a pasted newline?)", EnvAPIKey)
	}
	if c.Model == "" {
		return fmt.Errorf("%s: required when MODEL_PROVIDER=%s, for example gpt-4.1-mini or the model name your server serves",
			EnvModel, Provider)
	}
	if strings.ContainsFunc(c.Model, isSpaceOrControlRune) {
		return fmt.Errorf("%s: %q contains whitespace", EnvModel, c.Model)
	}
	if strings.ContainsFunc(c.Organization, isSpaceOrControlRune) {
		return fmt.Errorf("%s: %q contains whitespace", EnvOrg, c.Organization)
	}
	return nil
}

// ValidateBaseURL checks that raw, the value of the variable name, is an
// absolute http(s) URL with a host and no credentials. The error starts with
// name so that a person knows which variable to fix. Every base URL the
// processes read goes through it, so that they all accept the same values.
func ValidateBaseURL(name, raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		// url.Error repeats the whole URL, which may hold a password that
		// could not be parsed out; the cause alone says what is wrong.
		var urlErr *url.Error
		if errors.As(err, &urlErr) {
			err = urlErr.Err
		}
		return fmt.Errorf("%s: not a URL: %w", name, err)
	}
	// Checked first so that no later message quotes a URL that holds a
	// password: credentials in the URL would travel with every request and
	// show in every error that names the URL.
	if u.User != nil {
		return fmt.Errorf("%s: must not carry credentials; give the key or token its own variable", name)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%s: %q must start with http:// or https://", name, raw)
	}
	if u.Host == "" {
		return fmt.Errorf("%s: %q has no host", name, raw)
	}
	return nil
}

// String describes the configuration without the key.
func (c Config) String() string {
	return fmt.Sprintf("Config{BaseURL: %q, APIKey: %s, Model: %q, Organization: %q}",
		c.BaseURL, redactedKey(c.APIKey), c.Model, c.Organization)
}

// GoString keeps %#v from printing the key.
func (c Config) GoString() string { return c.String() }

// LogValue keeps slog from printing the key.
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("baseURL", c.BaseURL),
		slog.String("apiKey", redactedKey(c.APIKey)),
		slog.String("model", c.Model),
		slog.String("organization", c.Organization),
	)
}

func redactedKey(key string) string {
	if key == "" {
		return "unset"
	}
	return "[redacted]"
}

func isSpaceOrControlRune(r rune) bool {
	return r <= ' ' || r == 0x7f
}
