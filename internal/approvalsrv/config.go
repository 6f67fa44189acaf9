package approvalsrv

import (
	"fmt"
	"net/http"
	"strings"
)

// DefaultAddr is where the server listens unless APPROVAL_ADDR says otherwise.
const DefaultAddr = "127.0.0.1:8080"

// minSecretLength keeps the HMAC key of the decision API out of guessing range.
const minSecretLength = 16

// Config is the approval server's configuration, read once from the environment.
type Config struct {
	// Addr is APPROVAL_ADDR.
	Addr string
	// Secret is APPROVAL_SECRET, the HMAC key of the signed API.
	Secret string
	// WebhookSecret is GITHUB_WEBHOOK_SECRET.
	WebhookSecret string
	// IdentityHeader is APPROVAL_IDENTITY_HEADER: the header a trusted reverse
	// proxy sets to the logged-in user. The web form takes the approver from it.
	IdentityHeader string
	// InsecureDev is APPROVAL_INSECURE_DEV=1: missing secrets are tolerated,
	// unsigned requests are accepted and the web form takes a typed name.
	InsecureDev bool
}

// ConfigFromEnv reads the configuration through getenv (os.Getenv in the main).
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	cfg := Config{
		Addr:           strings.TrimSpace(getenv("APPROVAL_ADDR")),
		Secret:         getenv("APPROVAL_SECRET"),
		WebhookSecret:  getenv("GITHUB_WEBHOOK_SECRET"),
		IdentityHeader: strings.TrimSpace(getenv("APPROVAL_IDENTITY_HEADER")),
	}
	if cfg.Addr == "" {
		cfg.Addr = DefaultAddr
	}
	switch v := strings.TrimSpace(getenv("APPROVAL_INSECURE_DEV")); v {
	case "", "0", "false":
	case "1", "true":
		cfg.InsecureDev = true
	default:
		return Config{}, fmt.Errorf("APPROVAL_INSECURE_DEV=%q: want 1 or 0", v)
	}
	if err := cfg.validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

func (c Config) validate() error {
	if c.Secret != "" && len(c.Secret) < minSecretLength {
		return fmt.Errorf("APPROVAL_SECRET is too short: want at least %d characters", minSecretLength)
	}
	if c.IdentityHeader != "" && !validHeaderName(c.IdentityHeader) {
		return fmt.Errorf("APPROVAL_IDENTITY_HEADER=%q is not a valid header name", c.IdentityHeader)
	}
	if c.InsecureDev {
		return nil
	}
	var missing []string
	if c.Secret == "" {
		missing = append(missing, "APPROVAL_SECRET")
	}
	if c.WebhookSecret == "" {
		missing = append(missing, "GITHUB_WEBHOOK_SECRET")
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s not set: the approval server refuses to start without its secrets (set APPROVAL_INSECURE_DEV=1 for local development only)",
			strings.Join(missing, " and "))
	}
	return nil
}

// InsecureWarnings lists what dev mode switches off, for the loud start-up log.
func (c Config) InsecureWarnings() []string {
	if !c.InsecureDev {
		return nil
	}
	warnings := []string{"the web form accepts a typed approver name when the identity header is absent"}
	if c.Secret == "" {
		warnings = append(warnings, "APPROVAL_SECRET is unset: the decision and resolve API accept unsigned requests")
	}
	if c.WebhookSecret == "" {
		warnings = append(warnings, "GITHUB_WEBHOOK_SECRET is unset: the GitHub webhook accepts unsigned deliveries")
	}
	return warnings
}

func validHeaderName(name string) bool {
	return http.CanonicalHeaderKey(name) != "" && !strings.ContainsAny(name, " \t\r\n:()<>@,;\\\"/[]?={}")
}
