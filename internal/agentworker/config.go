// Package agentworker wires an agentrun worker: the configuration the worker
// main reads from its environment, and the registration of the AgentRun
// workflow and its activities. Tests start in-process workers through it so
// that they run exactly what the main runs.
package agentworker

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/internal/config"
	"github.com/agentrun/agentrun/internal/startup"
	"github.com/agentrun/agentrun/internal/telemetry"
	"github.com/agentrun/agentrun/internal/temporalclient"
	"github.com/agentrun/agentrun/model/openai"
)

// DefaultModelProvider needs no network and no key: the deterministic reviewer.
const DefaultModelProvider = ProviderOffline

// DefaultStopTimeout is how long a stopping worker lets in-flight activities
// finish: one attempt of a tool call (the default toolTimeout) fits in it,
// so that a deploy does not turn an action being sent (a comment, a
// message) into an unknown outcome to reconcile.
const DefaultStopTimeout = 30 * time.Second

// DefaultStickyCacheSize is how many runs a worker process keeps in memory
// between their workflow tasks (AGENT_STICKY_CACHE_SIZE). A run waiting for
// approval holds about 110 KiB there (docs/benchmarks.md: its state, its
// coroutines' stacks, the SDK's view of its history), so 2,000 bound that to
// some 220 MiB, where the SDK's own default of 10,000 would take over 1 GiB.
// A task of a run that was evicted (a decision on an old approval, say)
// first replays the run's history on the worker: a few milliseconds for an
// approval's 50 events (the bench measures it).
const DefaultStickyCacheSize = 2000

// Log formats LOG_FORMAT accepts.
const (
	LogText = "text"
	LogJSON = "json"
)

// Config is everything a worker needs, read once at start-up.
type Config struct {
	Temporal  temporalclient.Config
	TaskQueue string
	// GitHub authenticates the GitHub tools: GITHUB_API_URL (empty means
	// api.github.com; the sandbox and GitHub Enterprise set it), and
	// GITHUB_TOKEN (empty means anonymous, which can read a public pull
	// request but not comment) or a GitHub App (GITHUB_APP_ID and its key).
	GitHub github.Credentials
	// GitHubBotLogin is the login the token posts as (GITHUB_BOT_LOGIN);
	// empty means ask GET /user once at start-up, or in app mode GET /app
	// ("<slug>[bot]"), which a login set here must then match.
	GitHubBotLogin string
	// AllowedRepos limits the GitHub tools to these repositories
	// (AGENT_ALLOWED_REPOS); empty allows every repository the token reaches.
	AllowedRepos  github.RepoAllowlist
	ModelProvider string
	// OpenAI is the OPENAI_* settings, read when MODEL_PROVIDER is openai
	// (and left zero otherwise).
	OpenAI openai.Config
	// LogFormat is text (the default, for a terminal) or json (for a log pipeline).
	LogFormat string
	// StopTimeout is how long SIGTERM lets in-flight activities finish before
	// their contexts are cancelled (AGENT_STOP_TIMEOUT). Whatever runs the
	// worker must wait at least this long before killing it.
	StopTimeout time.Duration
	// Telemetry is METRICS_ADDR and the OTEL_* variables.
	Telemetry telemetry.Config
	// Deployment is the Worker Deployment Version the worker polls as; the
	// zero value (AGENT_VERSIONING=off) is unversioned.
	Deployment Deployment
	// Tools is AGENT_TOOLS_FILE read and checked; nil serves the built-in
	// tools and agents only.
	Tools *ToolsFile
	// MerchantURL is the merchant service the recommend agent reads and
	// saves to (AGENT_MERCHANT_URL); empty leaves the agent out.
	MerchantURL string
	// RunPageURL is the approval server as people reach it
	// (AGENTRUN_RUN_PAGE_URL): a run's check run links to its page there.
	RunPageURL string
	// StickyCacheSize is how many runs the worker process keeps cached
	// between their tasks (AGENT_STICKY_CACHE_SIZE).
	StickyCacheSize int
	// ChildEnv is what stdio MCP servers get of the worker's environment:
	// PATH and HOME.
	ChildEnv []string
	// Callbacks are AGENTRUN_CALLBACK_ALLOWED and AGENTRUN_CALLBACK_SECRET:
	// where runs may deliver their results, and the key that signs them.
	Callbacks activities.Callbacks
}

// HasGitHub reports whether any GitHub variable is set (GITHUB_API_URL,
// GITHUB_TOKEN or its _FILE, GITHUB_APP_ID, GITHUB_BOT_LOGIN). A worker with none has no
// GitHub at all: no client, no identity to learn, none of the GitHub tools
// and so none of the built-in agents, only those of AGENT_TOOLS_FILE and
// AGENT_MERCHANT_URL (LoadTools).
func (c Config) HasGitHub() bool {
	return c.GitHub.Set() || c.GitHubBotLogin != ""
}

// ServiceName names the worker in its spans unless OTEL_SERVICE_NAME does.
const ServiceName = "agentrun-worker"

// ConfigFromEnv reads the worker's settings (see Settings) through getenv,
// applying defaults to the unset ones and naming the variable of a bad value.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	return Settings().Read(getenv)
}

// Settings is every variable the worker reads.
func Settings() config.Table[Config] {
	return config.Table[Config]{
		Program: "worker",
		Settings: slices.Concat(startup.TemporalSettings[Config](), startup.TelemetrySettings[Config](ServiceName),
			github.Settings(func(c *Config) *github.Credentials { return &c.GitHub }),
			startup.TaskQueueSettings(func(c *Config) *string { return &c.TaskQueue }), workerSettings(), deploymentSettings()),
		Finish: finish,
	}
}

func workerSettings() []config.Setting[Config] {
	return []config.Setting[Config]{
		{Name: "GITHUB_BOT_LOGIN", Description: "the login the token posts as (a GitHub App: name[bot]); default from GET /user",
			Parse: parseBotLogin},
		{Name: "AGENT_ALLOWED_REPOS", Description: "comma-separated owner/repo list the GitHub tools may touch; default any",
			Parse: func(c *Config, v string) (err error) {
				c.AllowedRepos, err = github.ParseRepoAllowlist(v)
				return err
			}},
		{Name: "MODEL_PROVIDER", Default: DefaultModelProvider, Description: "offline (the deterministic reviewer) or openai",
			Parse: parseModelProvider},
		{Name: openai.EnvBaseURL, Default: openai.DefaultBaseURL, Description: "any OpenAI-compatible server (with MODEL_PROVIDER=openai)",
			Parse: func(c *Config, v string) error { c.OpenAI.BaseURL = v; return nil }},
		{Name: openai.EnvAPIKey, Secret: true, Description: "the API key; required with MODEL_PROVIDER=openai",
			Parse: func(c *Config, v string) error { c.OpenAI.APIKey = v; return nil }},
		{Name: openai.EnvModel, Description: "the model name; required with MODEL_PROVIDER=openai",
			Parse: func(c *Config, v string) error { c.OpenAI.Model = v; return nil }},
		{Name: openai.EnvOrg, Description: "the OpenAI organization (optional)",
			Parse: func(c *Config, v string) error { c.OpenAI.Organization = v; return nil }},
		{Name: "LOG_FORMAT", Default: LogText, Description: "text or json", Parse: parseLogFormat},
		{Name: "AGENT_TOOLS_FILE", Description: "a JSON file of MCP servers, http_request tools and agents to serve besides the built-in ones " +
			"(docs/tools.md); every worker of a task queue must load the same file; default none",
			Parse: parseToolsFile},
		{Name: "AGENT_MERCHANT_URL", Description: "the merchant service (the sandbox serves one) over which the worker serves the recommend agent; " +
			"every worker of a task queue must set the same; default none, and no recommend agent",
			Parse: parseMerchantURL},
		{Name: "AGENTRUN_RUN_PAGE_URL", Description: "the approval server's address as people reach it (https://agentrun.example.com); a run's check run links to the run's page there; default none, and the check names the run ID only",
			Parse: parseRunPageURL},
		{Name: "PATH", Description: "handed to stdio MCP servers, which get no other variable of the worker's but HOME and their own env",
			Parse: func(c *Config, v string) error { c.ChildEnv = appendSet(c.ChildEnv, "PATH", v); return nil }},
		{Name: "HOME", Description: "handed to stdio MCP servers, as PATH is",
			Parse: func(c *Config, v string) error { c.ChildEnv = appendSet(c.ChildEnv, "HOME", v); return nil }},
		{Name: "AGENT_STICKY_CACHE_SIZE", Default: strconv.Itoa(DefaultStickyCacheSize),
			Description: "how many runs the worker keeps in memory between their tasks (about 110 KiB each while one waits for approval); " +
				"a task of a run evicted from it first replays the run's history",
			Parse: parseStickyCacheSize},
		{Name: api.EnvCallbackAllowed, Description: "comma-separated URL prefixes (https://host/path) a run's callback may go to; " +
			"plain http only where a prefix says http, or to loopback; the worker's list is the final word; default none",
			Parse: func(c *Config, v string) (err error) {
				c.Callbacks.Allowed, err = api.ParseCallbackAllowList(v)
				return err
			}},
		{Name: "AGENTRUN_CALLBACK_SECRET", Secret: true, Description: "the secret each callback receiver's own key is derived from (HMAC-SHA256 of its origin, api.CallbackKey); " +
			"deliveries are signed as the signed API signs, with that key; give a receiver its key, never this; " +
			"needed with AGENTRUN_CALLBACK_ALLOWED; at least 32 bytes",
			Parse: parseCallbackSecret},
		{Name: "AGENT_STOP_TIMEOUT", Default: DefaultStopTimeout.String(), Description: "on SIGTERM, how long activities in flight may finish before they are cancelled",
			Parse: parseStopTimeout},
	}
}

// finish reads the shared settings and checks the OpenAI ones only for the
// provider that uses them: a worker on the offline reviewer ignores them.
func finish(c *Config, get func(string) string) error {
	var err error
	if c.Temporal, err = temporalclient.ConfigFromEnv(get); err != nil {
		return err
	}
	if c.Telemetry, err = telemetry.ConfigFromEnv(get, ServiceName); err != nil {
		return err
	}
	if err := c.GitHub.Validate(); err != nil {
		return err
	}
	if !c.Callbacks.Allowed.Empty() && len(c.Callbacks.Secret) == 0 {
		return fmt.Errorf("%s is set but AGENTRUN_CALLBACK_SECRET is not: a result delivery must be signed", api.EnvCallbackAllowed)
	}
	if c.ModelProvider != ProviderOpenAI {
		c.OpenAI = openai.Config{}
	} else if err := c.OpenAI.Validate(); err != nil {
		return err
	}
	return finishDeployment(&c.Deployment)
}

// appendSet appends key=v to env when v is set.
func appendSet(env []string, key, v string) []string {
	if v == "" {
		return env
	}
	return append(env, key+"="+v)
}

// parseBotLogin refuses a wrong login, which is worse than none: the worker
// would never recognise its own comments and would post again after a lost
// response.
func parseBotLogin(c *Config, v string) error {
	c.GitHubBotLogin = v
	if v != "" && !validGitHubLogin(v) {
		return fmt.Errorf("%q is not a GitHub login (letters, digits and single inner hyphens, "+
			"\"[bot]\" after a GitHub App's name; no \"@\")", v)
	}
	return nil
}

func parseModelProvider(c *Config, v string) error {
	c.ModelProvider = v
	if !slices.Contains(KnownProviders(), v) {
		return fmt.Errorf("%q is not a known provider; known: %s", v, strings.Join(KnownProviders(), ", "))
	}
	return nil
}

func parseLogFormat(c *Config, v string) error {
	c.LogFormat = v
	if v != LogText && v != LogJSON {
		return fmt.Errorf("%q is neither text nor json", v)
	}
	return nil
}

func parseToolsFile(c *Config, v string) (err error) {
	if v == "" {
		return nil
	}
	c.Tools, err = ReadToolsFile(v)
	return err
}

// parseRunPageURL takes an absolute http(s) URL, without its trailing slash.
func parseRunPageURL(c *Config, v string) error {
	if v == "" {
		return nil
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("want an absolute http or https URL without query, got %q", v)
	}
	c.RunPageURL = strings.TrimSuffix(v, "/")
	return nil
}

// parseMerchantURL builds the agent once to check the URL, so that a bad
// one stops start-up naming the variable rather than the first run.
func parseMerchantURL(c *Config, v string) error {
	if v == "" {
		return nil
	}
	if _, err := agents.Recommender(v, nil); err != nil {
		return err
	}
	c.MerchantURL = v
	return nil
}

func parseStickyCacheSize(c *Config, v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return fmt.Errorf("%q is not a whole number of runs of at least 1", v)
	}
	c.StickyCacheSize = n
	return nil
}

func parseCallbackSecret(c *Config, v string) error {
	if v != "" && len(v) < 32 {
		return fmt.Errorf("is %d bytes; want at least 32 (openssl rand -hex 32)", len(v))
	}
	if v != "" {
		c.Callbacks.Secret = []byte(v)
	}
	return nil
}

func parseStopTimeout(c *Config, v string) error {
	d, err := time.ParseDuration(v)
	if err != nil {
		return fmt.Errorf("%q is not a duration like 30s or 2m: %w", v, err)
	}
	if d < 0 {
		return fmt.Errorf("%s is negative", v)
	}
	c.StopTimeout = d
	return nil
}

// githubLogin is GitHub's rule for user names, plus the "[bot]" suffix a
// GitHub App posts under.
var githubLogin = regexp.MustCompile(`^[A-Za-z0-9](?:-?[A-Za-z0-9])*(?:\[bot\])?$`)

// maxGitHubLoginLen is GitHub's limit on a user name, "[bot]" aside.
const maxGitHubLoginLen = 39

func validGitHubLogin(login string) bool {
	return githubLogin.MatchString(login) && len(strings.TrimSuffix(login, "[bot]")) <= maxGitHubLoginLen
}
