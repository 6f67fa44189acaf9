// Package temporalclient is the one place that dials Temporal: every process
// (worker, starter, approval server, tests) gets its client here, so that the
// address, namespace, TLS, API key, logging and payload encryption are
// decided once.
//
// The connection settings are the SDK's own (go.temporal.io/sdk/contrib/
// envconfig): the TEMPORAL_* variables and the profiles of temporal.toml that
// the temporal CLI and every other SDK read, so one set of variables reaches a
// dev server, a self-hosted cluster over mTLS, or Temporal Cloud.
package temporalclient

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/contrib/envconfig"
	"go.temporal.io/sdk/interceptor"

	"github.com/agentrun/agentrun/internal/payloadcodec"
)

// Defaults for a local dev server.
const (
	DefaultAddress   = "localhost:7233"
	DefaultNamespace = "default"
)

// Config says where Temporal is, how to authenticate to it, and how payloads
// are encrypted. The zero connection fields mean plaintext without
// credentials, as a dev server wants.
type Config struct {
	Address   string // host:port of the frontend
	Namespace string
	// Profile names the temporal.toml profile the values started from
	// ("default" at path ConfigFile); empty when no file was read.
	Profile    string
	ConfigFile string
	// Codec encrypts every payload (AGENTRUN_PAYLOAD_KEYS); nil leaves them
	// plain.
	Codec *payloadcodec.Codec
	// Compression is the gRPC compression (AGENTRUN_GRPC_COMPRESSION); the
	// zero value is auto.
	Compression Compression

	// MetricsHandler and Interceptors are set by the program from
	// internal/telemetry, never from the environment: the SDK's metrics (and
	// agentrun's own, which workflows and activities count through the same
	// handler) and its tracing interceptor. A worker made from the client
	// inherits both. Nil means no metrics and no spans.
	MetricsHandler client.MetricsHandler
	Interceptors   []interceptor.ClientInterceptor

	// connection is what envconfig made of TLS, API key, gRPC metadata and
	// authority; HostPort and Namespace live in the fields above.
	connection client.ConnectionOptions
	// auth holds the API key's credentials and a profile's grpc_meta
	// headers, the rest of envconfig's options.
	auth client.Options
}

// TLS reports whether the connection is encrypted.
func (c Config) TLS() bool { return c.connection.TLS != nil && !c.connection.TLSDisabled }

// APIKey reports whether the client authenticates with an API key.
func (c Config) APIKey() bool { return c.auth.Credentials != nil }

// ConfigFromEnv reads the connection from the environment and the optional
// temporal.toml profile (TEMPORAL_CONFIG_FILE, TEMPORAL_PROFILE; a variable
// overrides the profile's value), and the payload keys from
// AGENTRUN_PAYLOAD_KEYS, and the gRPC compression from
// AGENTRUN_GRPC_COMPRESSION. getenv is os.Getenv in a main and a map lookup in a
// test; an empty variable counts as unset. A bad value is an error naming
// the variable (or the profile's key).
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	env := readEnv(getenv)
	src := sources{env: env}
	prof, err := loadProfile(env, &src)
	if err != nil {
		return Config{}, err
	}
	if err := checkBools(env); err != nil {
		return Config{}, err
	}
	if err := prof.ApplyEnvVars(env); err != nil {
		return Config{}, fmt.Errorf("TEMPORAL_* variables: %w", err)
	}
	cfg := Config{Address: prof.Address, Namespace: prof.Namespace, Profile: src.profile, ConfigFile: src.file}
	if cfg.Address == "" {
		cfg.Address = DefaultAddress
	}
	if cfg.Namespace == "" {
		cfg.Namespace = DefaultNamespace
	}
	if err := ValidateAddress(cfg.Address); err != nil {
		return Config{}, fmt.Errorf("%s: %w", src.name("TEMPORAL_ADDRESS", "address"), err)
	}
	if strings.ContainsFunc(prof.APIKey, isSpaceOrControl) {
		return Config{}, fmt.Errorf("%s: contains whitespace (a pasted newline?)", src.name("TEMPORAL_API_KEY", "api_key"))
	}
	if err := checkTLS(prof.TLS, src); err != nil {
		return Config{}, err
	}
	// The remote codec of a profile is for the CLI and the UI; agentrun's own
	// processes encrypt locally, and a worker must never call out to decode.
	opts, err := prof.ToClientOptions(envconfig.ToClientOptionsRequest{IncludeRemoteCodec: false})
	if err != nil {
		return Config{}, fmt.Errorf("TEMPORAL_TLS_* or the profile's tls: %w", err)
	}
	cfg.connection = opts.ConnectionOptions
	cfg.auth = client.Options{Credentials: opts.Credentials, HeadersProvider: opts.HeadersProvider}
	if cfg.Codec, err = payloadcodec.Parse(env["AGENTRUN_PAYLOAD_KEYS"]); err != nil {
		return Config{}, fmt.Errorf("AGENTRUN_PAYLOAD_KEYS: %w", err)
	}
	if cfg.Compression, err = ParseCompression(env["AGENTRUN_GRPC_COMPRESSION"]); err != nil {
		return Config{}, fmt.Errorf("AGENTRUN_GRPC_COMPRESSION: %w", err)
	}
	return cfg, nil
}

// loadProfile reads temporal.toml: TEMPORAL_CONFIG_FILE, or the CLI's
// default path if it exists. A missing default file is fine; a missing named
// file or profile is not.
func loadProfile(env envVars, src *sources) (envconfig.ClientConfigProfile, error) {
	file := env["TEMPORAL_CONFIG_FILE"]
	if file != "" {
		if _, err := os.Stat(file); err != nil {
			return envconfig.ClientConfigProfile{}, fmt.Errorf("TEMPORAL_CONFIG_FILE: %w", err)
		}
	} else {
		file = envconfig.DefaultConfigFilePath()
	}
	all, err := envconfig.LoadClientConfig(envconfig.LoadClientConfigOptions{ConfigFilePath: file, EnvLookup: env})
	if err != nil {
		return envconfig.ClientConfigProfile{}, fmt.Errorf("TEMPORAL_CONFIG_FILE (%s): %w", file, err)
	}
	name := env["TEMPORAL_PROFILE"]
	p := all.Profiles[orDefault(name, envconfig.DefaultConfigFileProfile)]
	if p == nil {
		if name != "" {
			return envconfig.ClientConfigProfile{}, fmt.Errorf("TEMPORAL_PROFILE: no profile %q in %s", name, describeFile(file))
		}
		return envconfig.ClientConfigProfile{}, nil
	}
	src.profile, src.file = orDefault(name, envconfig.DefaultConfigFileProfile), file
	return *p, nil
}

func describeFile(file string) string {
	if _, err := os.Stat(file); errors.Is(err, os.ErrNotExist) {
		return file + " (which does not exist; set TEMPORAL_CONFIG_FILE)"
	}
	return file
}

// checkBools refuses what envconfig would silently ignore: a TEMPORAL_TLS
// of "yes" would otherwise leave TLS as the profile had it.
func checkBools(env envVars) error {
	for _, name := range []string{"TEMPORAL_TLS", "TEMPORAL_TLS_DISABLE_HOST_VERIFICATION"} {
		v := env[name]
		if v == "" {
			continue
		}
		switch strings.ToLower(v) {
		case "1", "0", "true", "false":
		default:
			return fmt.Errorf("%s: %q is not one of true, false, 1, 0", name, v)
		}
	}
	return nil
}

// ValidateAddress accepts host:port with a non-empty host and a port in 1..65535.
func ValidateAddress(address string) error {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("%q is not host:port: %w", address, err)
	}
	if host == "" {
		return fmt.Errorf("%q has no host", address)
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("%q has port %q, want a number in 1..65535", address, port)
	}
	return nil
}

// sources names where a value came from: the variable when it is set, else
// the key of the profile it was read from.
type sources struct {
	env           envVars
	profile, file string
}

func (s sources) name(variable, tomlKey string) string {
	if s.env[variable] != "" || s.profile == "" {
		return variable
	}
	return fmt.Sprintf("%s (%s of profile %q in %s)", variable, tomlKey, s.profile, s.file)
}

// envVars are the variables this package reads, read once by name. Each
// read is spelt out, so that internal/composecheck sees which variables the
// programs need; envconfig reads its own through LookupEnv, from this map.
// Left out on purpose: TEMPORAL_CODEC_* (our programs encrypt locally and
// never call a remote codec) and TEMPORAL_GRPC_META_* (a getenv cannot list
// variables; a profile's grpc_meta works).
type envVars map[string]string

func readEnv(getenv func(string) string) envVars {
	return envVars{
		"TEMPORAL_CONFIG_FILE":                   getenv("TEMPORAL_CONFIG_FILE"),
		"TEMPORAL_PROFILE":                       getenv("TEMPORAL_PROFILE"),
		"TEMPORAL_ADDRESS":                       getenv("TEMPORAL_ADDRESS"),
		"TEMPORAL_NAMESPACE":                     getenv("TEMPORAL_NAMESPACE"),
		"TEMPORAL_API_KEY":                       getenv("TEMPORAL_API_KEY"),
		"TEMPORAL_CLIENT_AUTHORITY":              getenv("TEMPORAL_CLIENT_AUTHORITY"),
		"TEMPORAL_TLS":                           getenv("TEMPORAL_TLS"),
		"TEMPORAL_TLS_CLIENT_CERT_PATH":          getenv("TEMPORAL_TLS_CLIENT_CERT_PATH"),
		"TEMPORAL_TLS_CLIENT_CERT_DATA":          getenv("TEMPORAL_TLS_CLIENT_CERT_DATA"),
		"TEMPORAL_TLS_CLIENT_KEY_PATH":           getenv("TEMPORAL_TLS_CLIENT_KEY_PATH"),
		"TEMPORAL_TLS_CLIENT_KEY_DATA":           getenv("TEMPORAL_TLS_CLIENT_KEY_DATA"),
		"TEMPORAL_TLS_SERVER_CA_CERT_PATH":       getenv("TEMPORAL_TLS_SERVER_CA_CERT_PATH"),
		"TEMPORAL_TLS_SERVER_CA_CERT_DATA":       getenv("TEMPORAL_TLS_SERVER_CA_CERT_DATA"),
		"TEMPORAL_TLS_SERVER_NAME":               getenv("TEMPORAL_TLS_SERVER_NAME"),
		"TEMPORAL_TLS_DISABLE_HOST_VERIFICATION": getenv("TEMPORAL_TLS_DISABLE_HOST_VERIFICATION"),
		"AGENTRUN_PAYLOAD_KEYS":                  getenv("AGENTRUN_PAYLOAD_KEYS"),
		"AGENTRUN_GRPC_COMPRESSION":              getenv("AGENTRUN_GRPC_COMPRESSION"),
	}
}

// Environ and LookupEnv make envVars envconfig's EnvLookup. An empty value
// counts as unset, as for every other agentrun variable.
func (e envVars) Environ() []string { return nil }
func (e envVars) LookupEnv(k string) (string, bool) {
	v := e[k]
	return v, v != ""
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func isSpaceOrControl(r rune) bool { return r <= ' ' || r == 0x7f }
