package approvalsrv

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/approvalsrv/auth"
	"github.com/agentrun/agentrun/internal/config"
	"github.com/agentrun/agentrun/internal/startup"
)

// defaultAddr is where the server listens unless APPROVAL_ADDR says otherwise.
const defaultAddr = "127.0.0.1:8080"

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
	// CallbackAllowed is AGENTRUN_CALLBACK_ALLOWED, as the worker reads it:
	// the callback URLs POST /v1/runs accepts. The worker checks again.
	CallbackAllowed api.CallbackAllowList
	// AutoReview is AGENTRUN_AUTO_REVIEW: the repositories whose
	// pull_request deliveries start a review (autoreview.go).
	AutoReview AutoReview
}

// ConfigFromEnv reads the server's settings, and the task queue it starts
// runs on, through getenv.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	return config.Table[Config]{
		Program: "approval",
		Settings: slices.Concat(ServerSettings(func(c *Config) *Config { return c }),
			startup.TaskQueueSettings(func(c *Config) *string { return &c.TaskQueue })),
		Finish: func(c *Config, _ func(string) string) error { return c.Validate() },
	}.Read(getenv)
}

// outsideDev is when the secrets are required.
const outsideDev = "unless APPROVAL_INSECURE_DEV=1"

// ServerSettings are the server's variables, for the approval program's
// table; field says where it keeps the Config, whose Validate its Finish
// calls.
func ServerSettings[C any](field func(c *C) *Config) []config.Setting[C] {
	notDev := func(c *C) bool { return !field(c).InsecureDev }
	return []config.Setting[C]{
		{Name: "APPROVAL_ADDR", Default: defaultAddr, Description: "listen address of the API and the pages (and of the webhook unless APPROVAL_WEBHOOK_ADDR is set)",
			Parse: func(c *C, v string) error { field(c).Addr = strings.TrimSpace(v); return nil }},
		{Name: "APPROVAL_WEBHOOK_ADDR", Description: "serve /github/webhook on this address only, so that only the webhook faces the internet",
			Parse: func(c *C, v string) error { field(c).WebhookAddr = strings.TrimSpace(v); return nil }},
		{Name: "APPROVAL_SECRET", Secret: true, Required: notDev, RequiredWhen: outsideDev,
			Description: "HMAC key of the signed API; at least 32 bytes (openssl rand -hex 32)",
			Parse:       func(c *C, v string) error { field(c).Secret = v; return checkSecret(v) }},
		{Name: "GITHUB_WEBHOOK_SECRET", Secret: true, Required: notDev, RequiredWhen: outsideDev,
			Description: "GitHub webhook secret; at least 32 bytes",
			Parse:       func(c *C, v string) error { field(c).WebhookSecret = v; return checkSecret(v) }},
		{Name: "APPROVAL_IDENTITY_HEADER", Description: "header a login proxy sets to the logged-in user (X-Forwarded-User); needs APPROVAL_TRUSTED_PROXIES",
			Parse: func(c *C, v string) error { field(c).IdentityHeader = strings.TrimSpace(v); return nil }},
		{Name: "APPROVAL_TRUSTED_PROXIES", Description: "comma-separated CIDRs (or addresses) of that proxy as the server sees it",
			Parse: func(c *C, v string) (err error) {
				field(c).TrustedProxies, err = auth.ParseTrustedProxies(v)
				return err
			}},
		{Name: api.EnvCallbackAllowed, Description: "comma-separated URL prefixes a run's callbackUrl may be under (the worker's own list is the final word); default none",
			Parse: func(c *C, v string) (err error) {
				field(c).CallbackAllowed, err = api.ParseCallbackAllowList(v)
				return err
			}},
		{Name: "AGENTRUN_AUTO_REVIEW", Description: "repositories whose pull requests start their own review, and where a writer's /agentrun review starts one: " +
			"OWNER/NAME[=AGENT][:ask|:post][:drafts] entries, comma-separated, or * for every repository (docs/github-app.md); " +
			"drafts are skipped unless the entry says :drafts; a review waits for a writer's approval (:ask, the default) or posts at once (:post, recorded in the run's input); unset, pull_request deliveries change nothing",
			Parse: func(c *C, v string) (err error) {
				field(c).AutoReview, err = ParseAutoReview(v)
				return err
			}},
		{Name: "APPROVAL_INSECURE_DEV", Default: "0", Description: "1: no secrets, reads without credentials, a typed name on the page; loopback only; dev only",
			Parse: func(c *C, v string) (err error) { field(c).InsecureDev, err = config.Flag(v); return err }},
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

// Validate checks the rules across the server's settings.
func (c Config) Validate() error {
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
