package approvalsrv

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"

	"github.com/agentrun/agentrun/internal/approvalsrv/auth"
	"github.com/agentrun/agentrun/internal/config"
	"github.com/agentrun/agentrun/internal/payloadcodec"
	"github.com/agentrun/agentrun/internal/startup"
	"github.com/agentrun/agentrun/internal/telemetry"
	"github.com/agentrun/agentrun/internal/temporalclient"
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
	// InsecureDev is APPROVAL_INSECURE_DEV=1: missing secrets are tolerated,
	// unsigned requests are accepted, reads need no credentials and the web
	// form takes a typed name. Only on a loopback address.
	InsecureDev bool
}

// Program is everything the approval program reads from its environment.
type Program struct {
	Server   Config
	Temporal temporalclient.Config
	// Codec serves /codec/encode and /codec/decode for the Web UI and the
	// CLI when payloads are encrypted (see docs/operations.md).
	Codec payloadcodec.ServerConfig
	// GitHubAPIURL and GitHubToken reach the GitHub API for the webhook's
	// write-permission check; the same variables as the worker's.
	GitHubAPIURL string
	GitHubToken  string
	// Telemetry is METRICS_ADDR and the OTEL_* variables.
	Telemetry telemetry.Config
}

// ServiceName names the approval server in its spans unless
// OTEL_SERVICE_NAME does.
const ServiceName = "agentrun-approval"

// ConfigFromEnv reads the approval program's settings through getenv and
// returns the server's part.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	p, err := Settings().Read(getenv)
	return p.Server, err
}

// Settings is every variable the approval program reads.
func Settings() config.Table[Program] {
	return config.Table[Program]{
		Program: "approval",
		Settings: slices.Concat(serverSettings(), startup.TemporalSettings[Program](), startup.TelemetrySettings[Program](ServiceName),
			codecSettings(), startup.GitHubSettings(func(p *Program) (*string, *string) { return &p.GitHubAPIURL, &p.GitHubToken })),
		Finish: finish,
	}
}

// outsideDev is when the secrets are required.
const outsideDev = "unless APPROVAL_INSECURE_DEV=1"

func serverSettings() []config.Setting[Program] {
	notDev := func(p *Program) bool { return !p.Server.InsecureDev }
	return []config.Setting[Program]{
		{Name: "APPROVAL_ADDR", Default: DefaultAddr, Description: "listen address of the API and the pages (and of the webhook unless APPROVAL_WEBHOOK_ADDR is set)",
			Parse: func(p *Program, v string) error { p.Server.Addr = strings.TrimSpace(v); return nil }},
		{Name: "APPROVAL_WEBHOOK_ADDR", Description: "serve /github/webhook on this address only, so that only the webhook faces the internet",
			Parse: func(p *Program, v string) error { p.Server.WebhookAddr = strings.TrimSpace(v); return nil }},
		{Name: "APPROVAL_SECRET", Secret: true, Required: notDev, RequiredWhen: outsideDev,
			Description: "HMAC key of the signed API; at least 32 bytes (openssl rand -hex 32)",
			Parse:       func(p *Program, v string) error { p.Server.Secret = v; return checkSecret(v) }},
		{Name: "GITHUB_WEBHOOK_SECRET", Secret: true, Required: notDev, RequiredWhen: outsideDev,
			Description: "GitHub webhook secret; at least 32 bytes",
			Parse:       func(p *Program, v string) error { p.Server.WebhookSecret = v; return checkSecret(v) }},
		{Name: "APPROVAL_IDENTITY_HEADER", Description: "header a login proxy sets to the logged-in user (X-Forwarded-User); needs APPROVAL_TRUSTED_PROXIES",
			Parse: func(p *Program, v string) error { p.Server.IdentityHeader = strings.TrimSpace(v); return nil }},
		{Name: "APPROVAL_TRUSTED_PROXIES", Description: "comma-separated CIDRs (or addresses) of that proxy as the server sees it",
			Parse: func(p *Program, v string) (err error) {
				p.Server.TrustedProxies, err = auth.ParseTrustedProxies(v)
				return err
			}},
		{Name: "APPROVAL_INSECURE_DEV", Default: "0", Description: "1: no secrets, reads without credentials, a typed name on the page; loopback only; dev only",
			Parse: func(p *Program, v string) (err error) { p.Server.InsecureDev, err = config.Flag(v); return err }},
	}
}

func codecSettings() []config.Setting[Program] {
	return []config.Setting[Program]{
		{Name: "AGENTRUN_CODEC_TOKEN", Secret: true, Description: "serve /codec/encode and /codec/decode to callers with this bearer token; at least 32 bytes; needs AGENTRUN_PAYLOAD_KEYS"},
		{Name: "AGENTRUN_CODEC_CORS_ORIGINS", Description: "comma-separated Web UI origins whose pages may call the codec endpoint; needs AGENTRUN_CODEC_TOKEN"},
	}
}

// checkSecret refuses a short key: an HMAC key shorter than SHA-256's is
// easier to guess than the MAC it protects.
func checkSecret(v string) error {
	if v != "" && len(v) < minSecretLength {
		return fmt.Errorf("too short: want at least %d bytes (openssl rand -hex 32)", minSecretLength)
	}
	return nil
}

// finish reads the shared settings and checks the rules across settings.
func finish(p *Program, get func(string) string) error {
	if err := p.Server.validate(); err != nil {
		return err
	}
	var err error
	if p.Temporal, err = temporalclient.ConfigFromEnv(get); err != nil {
		return err
	}
	if p.Codec, err = payloadcodec.ServerConfigFromEnv(get); err != nil {
		return err
	}
	if p.Codec.Enabled() && p.Temporal.Codec == nil {
		return fmt.Errorf("AGENTRUN_CODEC_TOKEN: set, but AGENTRUN_PAYLOAD_KEYS is empty: there is nothing to decode")
	}
	p.Telemetry, err = telemetry.ConfigFromEnv(get, ServiceName)
	return err
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
	return c.validateIdentity()
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
