// Package httptool is the http_request tool: an action that sends one HTTP
// request to one configured API, and reconciles by sending it again.
//
// Every request carries the step's operationKey as its Idempotency-Key
// header, unquoted, as Stripe and most APIs take it (the IETF httpapi
// Idempotency-Key draft quotes it as a structured-field string). Reconcile
// repeats the request with the same key: a server that honours the header
// answers a repeat with the original result and does not act again, so the
// answer to the repeat is what happened.
//
// That strategy is sound ONLY against a server that honours the header, for
// at least as long as a run may take to reconcile (Stripe keeps keys for 24
// hours). Against any other server a repeat is a second request. Nothing on
// the wire says which kind a server is: configuring this tool for a BaseURL
// is the claim that its server honours Idempotency-Key, and whoever writes
// the agent's configuration makes it.
//
// An attempt sends its request once. Go's transport would send one that
// carries an Idempotency-Key again by itself when a reused connection closes
// before an answer, which does not prove the server never read it; the tool
// keeps it from doing so, and such an answer is an unknown outcome that the
// run reconciles. A redirect is never followed: to a GET it is a refusal, a
// 303 to any other method says the request was done (its Location is the
// result), and any other 3xx is an unknown outcome.
package httptool

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
)

// Defaults and bounds.
const (
	// DefaultName is the tool's name when Config.Name is empty.
	DefaultName = "http_request"
	// DefaultMaxResponseBytes bounds how much of a response the model reads.
	DefaultMaxResponseBytes = 64 << 10
	// MaxBodyBytes bounds a request body, as canonical JSON.
	MaxBodyBytes = 64 << 10
	// maxURLBytes bounds the request URL: a query the model writes must not
	// grow without bound either.
	maxURLBytes = 8 << 10
	// defaultTimeout bounds a request when the Config brings no client; the
	// activity's own deadline still applies.
	defaultTimeout = 30 * time.Second
)

// Config says which API the tool calls and how. It is read once, by New.
type Config struct {
	// Name is the tool's name; DefaultName when empty.
	Name string
	// Description is what the model reads about the tool; one naming the
	// API's host and the allowed paths when empty.
	Description string
	// BaseURL is the API's absolute http or https URL; a request's path is
	// appended to it.
	BaseURL string
	// AllowedMethods are the methods the model may use; POST when empty.
	AllowedMethods []string
	// AllowedPaths are the path prefixes the model may call, each starting
	// with "/". A prefix matches whole segments: "/v1/orders" allows
	// "/v1/orders" and "/v1/orders/7", not "/v1/orders-admin".
	AllowedPaths []string
	// Header is sent with every request (authentication, API version). It is
	// never shown to the model or in a preview, and long values are scrubbed
	// from what the server answers.
	Header http.Header
	// Client sends the requests; one with a 30 s timeout when nil. Its
	// redirect policy is replaced: redirects are never followed.
	Client *http.Client
	// MaxResponseBytes bounds how much of a response body the model reads;
	// DefaultMaxResponseBytes when zero.
	MaxResponseBytes int
	// Words are how people read the tool's calls ("save a recommendation",
	// "saved recommendation rec-1"); a request's ("send a request") when
	// empty.
	Words api.ToolWords
	// IDField is the top-level field of a JSON answer that names what the
	// request made ("id"): its value, when it is a short line of text or a
	// number, is the step's external ID. Empty: the step names none.
	IDField string
}

// requestWords are the words of a tool whose Config gives none.
var requestWords = api.ToolWords{Noun: "request", Verb: "send", Past: "sent"}

// methods are the methods a Config may allow.
var methods = []string{http.MethodDelete, http.MethodGet, http.MethodPatch, http.MethodPost, http.MethodPut}

// reservedHeaders are set by the tool itself, per request.
var reservedHeaders = []string{"Content-Length", "Content-Type", "Host", "Idempotency-Key", "Transfer-Encoding"}

// New checks cfg and builds the tool. Register it with tools.AlwaysAsk
// unless every request it allows is harmless.
func New(cfg Config) (tools.Action, error) {
	base, err := checkBaseURL(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	allowed, err := checkMethods(cfg.AllowedMethods)
	if err != nil {
		return nil, err
	}
	prefixes, err := checkPrefixes(cfg.AllowedPaths)
	if err != nil {
		return nil, err
	}
	header, err := checkHeader(cfg.Header)
	if err != nil {
		return nil, err
	}
	if cfg.MaxResponseBytes < 0 {
		return nil, fmt.Errorf("httptool: MaxResponseBytes %d is negative", cfg.MaxResponseBytes)
	}
	t := &tool{
		name:        cmp.Or(cfg.Name, DefaultName),
		base:        base,
		methods:     allowed,
		prefixes:    prefixes,
		header:      header,
		secrets:     secretsOf(header),
		client:      noRedirects(cfg.Client),
		maxResponse: cmp.Or(cfg.MaxResponseBytes, DefaultMaxResponseBytes),
		words:       cmp.Or(cfg.Words, requestWords),
		idField:     cfg.IDField,
	}
	t.description = cmp.Or(cfg.Description, fmt.Sprintf(
		"Send one HTTP request to %s. The path must start with one of: %s. The body is JSON. "+
			"The request runs once, under an idempotency key; the answer is its status and body.",
		base.Host, strings.Join(prefixes, ", ")))
	return t, nil
}

func checkBaseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("httptool: BaseURL %q: %w", raw, err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https", u.Host == "", u.Opaque != "":
		return nil, fmt.Errorf("httptool: BaseURL %q must be an absolute http or https URL", raw)
	case u.User != nil:
		// Credentials in the URL would show in every preview; they belong in Header.
		return nil, errors.New("httptool: BaseURL must not carry a user or password; put credentials in Header")
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return nil, fmt.Errorf("httptool: BaseURL %q must not have a query or fragment", raw)
	case strings.Contains(u.Path, "//") || strings.Contains(u.Path, ".."):
		return nil, fmt.Errorf("httptool: BaseURL %q has an empty or .. path segment", raw)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = ""
	return u, nil
}

func checkMethods(given []string) ([]string, error) {
	if len(given) == 0 {
		return []string{http.MethodPost}, nil
	}
	var allowed []string
	for _, m := range given {
		if !slices.Contains(methods, m) {
			return nil, fmt.Errorf("httptool: method %q: want one of %s", m, strings.Join(methods, ", "))
		}
		if !slices.Contains(allowed, m) {
			allowed = append(allowed, m)
		}
	}
	slices.Sort(allowed)
	return allowed, nil
}

func checkPrefixes(given []string) ([]string, error) {
	if len(given) == 0 {
		// An empty list allowing everything would be one typo from an open tool.
		return nil, errors.New(`httptool: AllowedPaths is empty; say "/" to allow every path`)
	}
	prefixes := make([]string, 0, len(given))
	for _, p := range given {
		if err := checkPath(p); err != nil {
			return nil, fmt.Errorf("httptool: AllowedPaths %q: %w", p, err)
		}
		prefixes = append(prefixes, p)
	}
	return prefixes, nil
}

func checkHeader(given http.Header) (http.Header, error) {
	header := make(http.Header, len(given))
	for name, values := range given {
		if !validHeaderName(name) {
			return nil, fmt.Errorf("httptool: Header name %q is not a valid field name", name)
		}
		canonical := http.CanonicalHeaderKey(name)
		if slices.Contains(reservedHeaders, canonical) {
			return nil, fmt.Errorf("httptool: Header %s is set by the tool itself", canonical)
		}
		for _, v := range values {
			// The value itself stays out of the message: it may be the secret.
			if strings.ContainsAny(v, "\r\n\x00") {
				return nil, fmt.Errorf("httptool: Header %s has a value with a line break or NUL", canonical)
			}
			header.Add(canonical, v)
		}
	}
	return header, nil
}

func validHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range name {
		if c > 0x7e || c <= ' ' || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, c) {
			return false
		}
	}
	return true
}

// noRedirects is the client the tool sends with: the given one (or a default)
// copied, so the caller's keeps its own policy, with redirects refused. A
// followed redirect would carry the key, the body and the static headers to
// wherever the server points.
func noRedirects(c *http.Client) *http.Client {
	copied := http.Client{Timeout: defaultTimeout}
	if c != nil {
		copied = *c
	}
	copied.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &copied
}
