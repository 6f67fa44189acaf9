package payloadcodec

import (
	"crypto/subtle"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"go.temporal.io/sdk/converter"
)

// MinTokenLength matches the approval server's secrets: a token that can be
// guessed decrypts every history.
const MinTokenLength = 32

// maxRequestBytes bounds one encode or decode request. The UI sends a page
// of a history's payloads at once; Temporal's own blob limit is 2 MiB each.
const maxRequestBytes = 32 << 20

// ServerConfig is the codec endpoint's configuration, read once at start-up.
type ServerConfig struct {
	// Token is AGENTRUN_CODEC_TOKEN: callers send `Authorization: Bearer
	// <token>`. Empty means the endpoint is not served.
	Token string
	// AllowedOrigins is AGENTRUN_CODEC_CORS_ORIGINS: the Web UI origins a
	// browser may call the endpoint from.
	AllowedOrigins []string
}

// Enabled reports whether the endpoint is to be served.
func (c ServerConfig) Enabled() bool { return c.Token != "" }

// ServerConfigFromEnv reads AGENTRUN_CODEC_TOKEN and
// AGENTRUN_CODEC_CORS_ORIGINS, naming the variable of a bad value.
func ServerConfigFromEnv(getenv func(string) string) (ServerConfig, error) {
	cfg := ServerConfig{Token: getenv("AGENTRUN_CODEC_TOKEN")}
	if cfg.Token != "" {
		if strings.ContainsFunc(cfg.Token, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
			return ServerConfig{}, fmt.Errorf("AGENTRUN_CODEC_TOKEN: contains whitespace (a pasted newline?)")
		}
		if len(cfg.Token) < MinTokenLength {
			return ServerConfig{}, fmt.Errorf("AGENTRUN_CODEC_TOKEN: %d bytes, want at least %d (openssl rand -hex 32)", len(cfg.Token), MinTokenLength)
		}
	}
	for _, origin := range strings.Split(getenv("AGENTRUN_CODEC_CORS_ORIGINS"), ",") {
		origin = strings.TrimSpace(origin)
		if origin == "" {
			continue
		}
		if err := validateOrigin(origin); err != nil {
			return ServerConfig{}, fmt.Errorf("AGENTRUN_CODEC_CORS_ORIGINS: %w", err)
		}
		cfg.AllowedOrigins = append(cfg.AllowedOrigins, origin)
	}
	if len(cfg.AllowedOrigins) > 0 && cfg.Token == "" {
		return ServerConfig{}, fmt.Errorf("AGENTRUN_CODEC_CORS_ORIGINS: set, but AGENTRUN_CODEC_TOKEN is empty, so no codec endpoint is served")
	}
	return cfg, nil
}

// validateOrigin accepts what a browser sends as Origin: scheme://host[:port]
// and nothing more. A wildcard is refused: the endpoint decrypts.
func validateOrigin(origin string) error {
	u, err := url.Parse(origin)
	if err != nil {
		return fmt.Errorf("%q: %w", origin, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") ||
		u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return fmt.Errorf("%q is not an origin: want scheme://host[:port], e.g. https://temporal-ui.example.com", origin)
	}
	return nil
}

// NewHandler serves POST {prefix}/encode and {prefix}/decode in the remote
// codec protocol (converter.NewPayloadCodecHTTPHandler), behind the bearer
// token and CORS of cfg. namespace is the client's: the keys belong to it,
// so a request for another namespace (the UI's X-Namespace) is refused.
// Every request is logged to logger (nil means slog.Default): a decrypt
// endpoint needs an audit trail of who used it. codec decrypts (nil: no
// keys, so payloads pass through as they are).
func NewHandler(codec *Codec, cfg ServerConfig, namespace string, logger *slog.Logger) http.Handler {
	if logger == nil {
		logger = slog.Default()
	}
	return &handler{crypto: codec, cfg: cfg, namespace: namespace, logger: logger}
}

type handler struct {
	crypto    *Codec
	cfg       ServerConfig
	namespace string
	logger    *slog.Logger
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	origin := r.Header.Get("Origin")
	if origin != "" {
		if !slices.Contains(h.cfg.AllowedOrigins, origin) {
			http.Error(w, "origin not allowed (AGENTRUN_CODEC_CORS_ORIGINS)", http.StatusForbidden)
			return
		}
		w.Header().Set("Access-Control-Allow-Origin", origin)
		w.Header().Set("Access-Control-Allow-Credentials", "true")
		w.Header().Add("Vary", "Origin")
	}
	// A browser's preflight carries no credentials; it only asks whether the
	// real request may follow, which the origin check above has decided.
	if r.Method == http.MethodOptions && origin != "" {
		w.Header().Set("Access-Control-Allow-Methods", "POST, OPTIONS")
		w.Header().Set("Access-Control-Allow-Headers", "Authorization, Content-Type, X-Namespace")
		w.Header().Set("Access-Control-Max-Age", "600")
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if !h.authorized(r) {
		h.logger.Warn("codec request refused: no valid token", "path", r.URL.Path, "peer", r.RemoteAddr, "origin", origin)
		w.Header().Set("WWW-Authenticate", `Bearer realm="agentrun codec"`)
		http.Error(w, "codec endpoint needs Authorization: Bearer <AGENTRUN_CODEC_TOKEN>", http.StatusUnauthorized)
		return
	}
	if ns := r.Header.Get("X-Namespace"); ns != "" && ns != h.namespace {
		http.Error(w, fmt.Sprintf("these keys belong to namespace %s, not %s", h.namespace, ns), http.StatusForbidden)
		return
	}
	h.logger.Info("codec request", "path", r.URL.Path, "peer", r.RemoteAddr, "origin", origin,
		"forwardedFor", r.Header.Get("X-Forwarded-For"))
	r.Body = http.MaxBytesReader(w, r.Body, maxRequestBytes)
	var codecs []converter.PayloadCodec
	if h.crypto != nil {
		codecs = append(codecs, h.crypto)
	}
	converter.NewPayloadCodecHTTPHandler(codecs...).ServeHTTP(w, r)
}

func (h *handler) authorized(r *http.Request) bool {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(strings.TrimSpace(token)), []byte(h.cfg.Token)) == 1
}
