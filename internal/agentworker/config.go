// Package agentworker wires an agentrun worker: the configuration the worker
// main reads from its environment, and the registration of the AgentRun
// workflow and its activities. Tests start in-process workers through it so
// that they run exactly what the main runs.
package agentworker

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/telemetry"
	"github.com/agentrun/agentrun/internal/temporalclient"
	"github.com/agentrun/agentrun/model"
	"github.com/agentrun/agentrun/model/openai"
)

// DefaultModelProvider needs no network and no key: the deterministic reviewer.
const DefaultModelProvider = model.ProviderOffline

// DefaultStopTimeout is how long a stopping worker lets in-flight activities
// finish: one GitHub call attempt (the default toolTimeout) fits in it, so
// that a deploy does not turn a comment being posted into an unknown outcome
// to reconcile.
const DefaultStopTimeout = 30 * time.Second

// Log formats LOG_FORMAT accepts.
const (
	LogText = "text"
	LogJSON = "json"
)

// Config is everything a worker needs, read once at start-up.
type Config struct {
	Temporal  temporalclient.Config
	TaskQueue string
	// GitHubToken authenticates the GitHub tools; empty means anonymous,
	// which can read a public pull request but not comment.
	GitHubToken string
	// GitHubAPIURL is the REST base URL; empty means api.github.com. The
	// sandbox and GitHub Enterprise set it.
	GitHubAPIURL string
	// GitHubBotLogin is the login the token posts as (GITHUB_BOT_LOGIN);
	// empty means ask GET /user once at start-up. A GitHub App's
	// installation token cannot read /user, so an App sets "name[bot]".
	GitHubBotLogin string
	// AllowedRepos limits the GitHub tools to these repositories
	// (AGENT_ALLOWED_REPOS); empty allows every repository the token reaches.
	AllowedRepos  activities.RepoAllowlist
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
}

// ServiceName names the worker in its spans unless OTEL_SERVICE_NAME does.
const ServiceName = "agentrun-worker"

// ConfigFromEnv reads the worker's variables (see the README's table),
// applying defaults to the unset ones and naming the variable of a bad value.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	temporalCfg, err := temporalclient.ConfigFromEnv(getenv)
	if err != nil {
		return Config{}, err
	}
	allowed, err := activities.ParseRepoAllowlist(getenv("AGENT_ALLOWED_REPOS"))
	if err != nil {
		return Config{}, fmt.Errorf("AGENT_ALLOWED_REPOS: %w", err)
	}
	stopTimeout, err := parseStopTimeout(getenv("AGENT_STOP_TIMEOUT"))
	if err != nil {
		return Config{}, err
	}
	tel, err := telemetry.ConfigFromEnv(getenv, ServiceName)
	if err != nil {
		return Config{}, err
	}
	deployment, err := deploymentFromEnv(getenv)
	if err != nil {
		return Config{}, err
	}
	cfg := Config{
		Deployment:     deployment,
		Telemetry:      tel,
		Temporal:       temporalCfg,
		TaskQueue:      orDefault(getenv("AGENT_TASK_QUEUE"), api.DefaultTaskQueue),
		GitHubToken:    getenv("GITHUB_TOKEN"),
		GitHubAPIURL:   getenv("GITHUB_API_URL"),
		GitHubBotLogin: getenv("GITHUB_BOT_LOGIN"),
		AllowedRepos:   allowed,
		ModelProvider:  orDefault(getenv("MODEL_PROVIDER"), DefaultModelProvider),
		LogFormat:      orDefault(getenv("LOG_FORMAT"), LogText),
		StopTimeout:    stopTimeout,
	}
	if cfg.ModelProvider == model.ProviderOpenAI {
		cfg.OpenAI = openai.Config{
			BaseURL:      orDefault(getenv(openai.EnvBaseURL), openai.DefaultBaseURL),
			APIKey:       getenv(openai.EnvAPIKey),
			Model:        getenv(openai.EnvModel),
			Organization: getenv(openai.EnvOrg),
		}
	}
	if err := cfg.validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

func (c Config) validate() error {
	if strings.ContainsFunc(c.TaskQueue, isSpaceOrControl) {
		return fmt.Errorf("AGENT_TASK_QUEUE: %q contains whitespace", c.TaskQueue)
	}
	// A token pasted with its trailing newline fails every call with a 401
	// that says nothing about why; refuse it up front.
	if strings.ContainsFunc(c.GitHubToken, isSpaceOrControl) {
		return fmt.Errorf("GITHUB_TOKEN: contains whitespace (a pasted newline?)")
	}
	// A wrong login is worse than none: the worker would never recognise
	// its own comments and would post again after a lost response.
	if c.GitHubBotLogin != "" && !validGitHubLogin(c.GitHubBotLogin) {
		return fmt.Errorf("GITHUB_BOT_LOGIN: %q is not a GitHub login (letters, digits and single inner hyphens, "+
			"\"[bot]\" after a GitHub App's name; no \"@\")", c.GitHubBotLogin)
	}
	if c.GitHubAPIURL != "" {
		if err := openai.ValidateBaseURL("GITHUB_API_URL", c.GitHubAPIURL); err != nil {
			return err
		}
	}
	if !slices.Contains(model.KnownProviders(), c.ModelProvider) {
		return fmt.Errorf("MODEL_PROVIDER: %q is not a known provider; known: %s",
			c.ModelProvider, strings.Join(model.KnownProviders(), ", "))
	}
	if c.ModelProvider == model.ProviderOpenAI {
		if err := c.OpenAI.Validate(); err != nil {
			return err
		}
	}
	if c.LogFormat != LogText && c.LogFormat != LogJSON {
		return fmt.Errorf("LOG_FORMAT: %q is neither text nor json", c.LogFormat)
	}
	return nil
}

func parseStopTimeout(v string) (time.Duration, error) {
	if v == "" {
		return DefaultStopTimeout, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("AGENT_STOP_TIMEOUT: %q is not a duration like 30s or 2m: %w", v, err)
	}
	if d < 0 {
		return 0, fmt.Errorf("AGENT_STOP_TIMEOUT: %s is negative", v)
	}
	return d, nil
}

// githubLogin is GitHub's rule for user names, plus the "[bot]" suffix a
// GitHub App posts under.
var githubLogin = regexp.MustCompile(`^[A-Za-z0-9](?:-?[A-Za-z0-9])*(?:\[bot\])?$`)

// maxGitHubLoginLen is GitHub's limit on a user name, "[bot]" aside.
const maxGitHubLoginLen = 39

func validGitHubLogin(login string) bool {
	return githubLogin.MatchString(login) && len(strings.TrimSuffix(login, "[bot]")) <= maxGitHubLoginLen
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func isSpaceOrControl(r rune) bool {
	return r <= ' ' || r == 0x7f
}
