package approvalsrv

import (
	"cmp"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/approvalsrv/auth"
)

// DefaultAddr is where the server listens unless APPROVAL_ADDR says otherwise.
const DefaultAddr = "127.0.0.1:8080"

// minSecretLength is the size of a SHA-256 key: a shorter HMAC key is easier
// to guess than the MAC it protects.
const minSecretLength = 32

// Config is the approval server's configuration, read once from the environment.
type Config struct {
	// Addr is APPROVAL_ADDR: the API and the pages (and the webhook unless
	// WebhookAddr is set).
	Addr string
	// WebhookAddr is APPROVAL_WEBHOOK_ADDR: when set, /github/webhook is served
	// on this listener only, so that it alone can face the internet.
	WebhookAddr string
	// Secret is APPROVAL_SECRET, the HMAC key of the signed API.
	Secret string
	// WebhookSecret is GITHUB_WEBHOOK_SECRET.
	WebhookSecret string
	// IdentityHeader is APPROVAL_IDENTITY_HEADER: the header a trusted reverse
	// proxy sets to the logged-in user. The pages need it and the web form
	// takes the approver from it.
	IdentityHeader string
	// TrustedProxies is APPROVAL_TRUSTED_PROXIES: the peers whose
	// IdentityHeader is believed. Anyone else could type the header.
	TrustedProxies []netip.Prefix
	// TaskQueue is AGENT_TASK_QUEUE, the workers' queue: where the runs
	// POST /v1/runs starts go.
	TaskQueue string
	// InsecureDev is APPROVAL_INSECURE_DEV=1: missing secrets are tolerated,
	// unsigned requests are accepted, reads need no credentials and the web
	// form takes a typed name. Only on a loopback address.
	InsecureDev bool
}

// ConfigFromEnv reads the configuration through getenv (os.Getenv in the main).
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	cfg := Config{
		Addr:           strings.TrimSpace(getenv("APPROVAL_ADDR")),
		WebhookAddr:    strings.TrimSpace(getenv("APPROVAL_WEBHOOK_ADDR")),
		Secret:         getenv("APPROVAL_SECRET"),
		WebhookSecret:  getenv("GITHUB_WEBHOOK_SECRET"),
		IdentityHeader: strings.TrimSpace(getenv("APPROVAL_IDENTITY_HEADER")),
		TaskQueue:      cmp.Or(strings.TrimSpace(getenv("AGENT_TASK_QUEUE")), api.DefaultTaskQueue),
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
	proxies, err := auth.ParseTrustedProxies(getenv("APPROVAL_TRUSTED_PROXIES"))
	if err != nil {
		return Config{}, err
	}
	cfg.TrustedProxies = proxies
	if err := cfg.validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

func (c Config) validate() error {
	if err := checkListenAddr("APPROVAL_ADDR", c.Addr, c.InsecureDev); err != nil {
		return err
	}
	if c.WebhookAddr != "" {
		if err := checkListenAddr("APPROVAL_WEBHOOK_ADDR", c.WebhookAddr, c.InsecureDev); err != nil {
			return err
		}
		if c.WebhookAddr == c.Addr {
			return fmt.Errorf("APPROVAL_WEBHOOK_ADDR=%s is APPROVAL_ADDR: leave it unset to serve the webhook there", c.WebhookAddr)
		}
	}
	for _, secret := range []struct{ name, value string }{{"APPROVAL_SECRET", c.Secret}, {"GITHUB_WEBHOOK_SECRET", c.WebhookSecret}} {
		if secret.value != "" && len(secret.value) < minSecretLength {
			return fmt.Errorf("%s is too short: want at least %d bytes (openssl rand -hex 32)", secret.name, minSecretLength)
		}
	}
	if err := c.validateIdentity(); err != nil {
		return err
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

func (c Config) validateIdentity() error {
	if c.IdentityHeader == "" {
		if len(c.TrustedProxies) > 0 {
			return fmt.Errorf("APPROVAL_TRUSTED_PROXIES is set but APPROVAL_IDENTITY_HEADER is not: name the header the proxy sets")
		}
		return nil
	}
	if !validHeaderName(c.IdentityHeader) {
		return fmt.Errorf("APPROVAL_IDENTITY_HEADER=%q is not a valid header name", c.IdentityHeader)
	}
	if len(c.TrustedProxies) == 0 {
		return fmt.Errorf("APPROVAL_IDENTITY_HEADER needs APPROVAL_TRUSTED_PROXIES: the CIDRs of the login proxy, or anyone could send %s", c.IdentityHeader)
	}
	return nil
}

// checkListenAddr refuses a malformed address, and in dev mode any address
// other hosts can reach: dev mode accepts unsigned decisions.
func checkListenAddr(variable, addr string, devMode bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%s=%q: want host:port: %w", variable, addr, err)
	}
	if devMode && !isLoopbackHost(host) {
		return fmt.Errorf("%s=%s: APPROVAL_INSECURE_DEV=1 listens on loopback only (127.0.0.1, ::1 or localhost)", variable, addr)
	}
	return nil
}

func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	addr, err := netip.ParseAddr(host)
	return err == nil && addr.Unmap().IsLoopback()
}

// proxy is the login proxy whose identity header the pages believe.
func (c Config) proxy() auth.Proxy {
	return auth.Proxy{Header: c.IdentityHeader, Trusted: c.TrustedProxies}
}

// InsecureWarnings lists what dev mode switches off, for the loud start-up log.
func (c Config) InsecureWarnings() []string {
	if !c.InsecureDev {
		return nil
	}
	warnings := []string{
		"the web form accepts a typed approver name when the identity header is absent",
		"the pages and GET /v1/* answer without credentials",
	}
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
