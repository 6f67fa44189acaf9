package api

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"
)

// DefaultCallbackDeadline is how long a run keeps trying to deliver its
// result to its callback URL before the delivery fails for good.
const DefaultCallbackDeadline = 24 * time.Hour

// MaxCallbackURLLength bounds a callback URL: it travels in the run's input
// and history.
const MaxCallbackURLLength = 2048

// EnvCallbackAllowed names the setting every channel reads its callback
// allow-list from: the starter and the approval server check a start with
// it, the worker checks again before it delivers, as the final word.
const EnvCallbackAllowed = "AGENTRUN_CALLBACK_ALLOWED"

// ToolDeliverResult names the step a run with a callback ends with: a
// tool_call step, since it is one call to an outside system, which the model
// never sees and whose outcome never changes the run's status.
const ToolDeliverResult = "deliver_result"

// ActivityDeliverResult takes a CallbackDelivery and returns a CallbackReceipt.
const ActivityDeliverResult = "DeliverResult"

// ErrTypeCallbackRefused: the callback's receiver refused the result for
// good (a 4xx other than 408 and 429, or a redirect), or the worker does not
// allow the URL or cannot sign; no retry can deliver it.
const ErrTypeCallbackRefused = "CallbackRefused"

// Callback is where a run delivers its result when it ends.
type Callback struct {
	URL string `json:"url"`
	// Deadline bounds the retries of the delivery, from the run's end; zero
	// means DefaultCallbackDeadline. It travels as a duration string.
	Deadline time.Duration `json:"deadline,omitempty"`
}

type callbackJSON struct {
	URL      string       `json:"url"`
	Deadline jsonDuration `json:"deadline,omitempty"`
}

// MarshalJSON writes the deadline as a duration string, as RunInput does.
func (c Callback) MarshalJSON() ([]byte, error) {
	return json.Marshal(callbackJSON{URL: c.URL, Deadline: jsonDuration(c.Deadline)})
}

// UnmarshalJSON reads the deadline as a duration string.
func (c *Callback) UnmarshalJSON(b []byte) error {
	var v callbackJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*c = Callback{URL: v.URL, Deadline: time.Duration(v.Deadline)}
	return nil
}

// HeaderIdempotencyKey is the header of a signed request's idempotency
// key: the run POST /v1/runs starts or finds, the result a delivery carries.
const HeaderIdempotencyKey = "Idempotency-Key"

// CallbackIdempotencyKey is the Idempotency-Key of a run's result delivery:
// one per run, so that a receiver that got it once recognises every retry.
func CallbackIdempotencyKey(runID string) string { return runID + ":result" }

// CallbackDelivery is the input of ActivityDeliverResult: the body is made by
// the run, so that every attempt sends the same bytes.
type CallbackDelivery struct {
	RunID string `json:"runId"`
	URL   string `json:"url"`
	Body  []byte `json:"body"`
}

// CallbackReceipt is how a delivery ended.
type CallbackReceipt struct {
	StatusCode int `json:"statusCode"`
	// Attempt is the attempt the receiver answered.
	Attempt int `json:"attempt"`
	// AlreadyHad is true when the receiver answered 409 Conflict: it holds
	// a result under the run's Idempotency-Key, which only an earlier
	// attempt of this delivery can have sent.
	AlreadyHad bool `json:"alreadyHad,omitempty"`
}

// CallbackResult is the body a run POSTs to its callback URL.
type CallbackResult struct {
	RunID   string    `json:"runId"`
	Agent   string    `json:"agent"`
	Status  RunStatus `json:"status"`
	Answer  string    `json:"answer,omitempty"`
	Error   string    `json:"error,omitempty"`
	Outcome *Outcome  `json:"outcome,omitempty"`
}

// CallbackAllowList is the parsed AGENTRUN_CALLBACK_ALLOWED: the URL
// prefixes a callback may go to. Empty allows none.
type CallbackAllowList struct {
	prefixes []callbackPrefix
}

type callbackPrefix struct {
	scheme, host, port, path string
}

// ErrCallbackRefused wraps every refusal of a callback URL; the text says
// why and is safe to show to whoever sent the URL.
var ErrCallbackRefused = errors.New("callback URL refused")

// ParseCallbackAllowList reads a comma-separated list of URL prefixes such
// as "https://hooks.example.com/agentrun/". Each is a scheme (https, or http
// when written so), a host and optionally a path; no user info, query or
// fragment.
func ParseCallbackAllowList(raw string) (CallbackAllowList, error) {
	var l CallbackAllowList
	for _, item := range strings.Split(raw, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		p, err := parseCallbackURL(item)
		if err == nil && strings.Contains(item, "?") {
			err = errors.New("a prefix has no query")
		}
		if err != nil {
			return CallbackAllowList{}, fmt.Errorf("prefix %q: %w", item, err)
		}
		l.prefixes = append(l.prefixes, p)
	}
	return l, nil
}

// Empty reports whether the list allows no callback at all.
func (l CallbackAllowList) Empty() bool { return len(l.prefixes) == 0 }

// Check refuses a callback URL that no prefix allows. A prefix matches by
// its parsed parts, not as a string: the same scheme, the same host and
// port, and a path that starts with the prefix's at a segment boundary, so
// that https://ok.example.com.evil.com is not under https://ok.example.com
// and /hooksevil is not under /hooks. Plain http goes only where a prefix
// says http, or to a loopback host.
func (l CallbackAllowList) Check(raw string) error {
	if l.Empty() {
		return fmt.Errorf("%w: this deployment allows no callbacks (%s is empty)", ErrCallbackRefused, EnvCallbackAllowed)
	}
	u, err := parseCallbackURL(raw)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrCallbackRefused, err)
	}
	for _, p := range l.prefixes {
		if p.allows(u) {
			return nil
		}
	}
	return fmt.Errorf("%w: it is under none of the prefixes %s allows", ErrCallbackRefused, EnvCallbackAllowed)
}

func (p callbackPrefix) allows(u callbackPrefix) bool {
	// An https prefix also takes http to the same loopback port: nothing
	// between the worker and the receiver can read it.
	sameScheme := p.scheme == u.scheme || (p.scheme == "https" && u.scheme == "http" && IsLoopbackHost(u.host))
	if !sameScheme || p.host != u.host || p.port != u.port {
		return false
	}
	if !strings.HasPrefix(u.path, p.path) {
		return false
	}
	rest := u.path[len(p.path):]
	return rest == "" || strings.HasSuffix(p.path, "/") || strings.HasPrefix(rest, "/")
}

func parseCallbackURL(raw string) (callbackPrefix, error) {
	if len(raw) > MaxCallbackURLLength {
		return callbackPrefix{}, fmt.Errorf("longer than %d bytes", MaxCallbackURLLength)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return callbackPrefix{}, errors.New("not a URL")
	}
	scheme := strings.ToLower(u.Scheme)
	switch {
	case scheme != "https" && scheme != "http":
		return callbackPrefix{}, errors.New("want an https:// (or http://) URL")
	case u.Opaque != "" || u.Host == "":
		return callbackPrefix{}, errors.New("want an absolute URL with a host")
	case u.User != nil:
		return callbackPrefix{}, errors.New("user info (user:password@) is not allowed in a callback URL")
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return callbackPrefix{}, errors.New("a fragment (#...) is not allowed")
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if seg == "." || seg == ".." {
			return callbackPrefix{}, errors.New("dot segments (/./ or /../) are not allowed in the path")
		}
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if host == "" {
		return callbackPrefix{}, errors.New("want a host")
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"https": "443", "http": "80"}[scheme]
	}
	return callbackPrefix{scheme: scheme, host: host, port: port, path: cmpOrSlash(u.Path)}, nil
}

func cmpOrSlash(path string) string {
	if path == "" {
		return "/"
	}
	return path
}

// IsLoopbackHost reports whether host (no port) names this machine: what a
// plain-http callback prefix may point at without anyone's network between.
func IsLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// CallbackOrigin is the receiver a callback URL names: its scheme, host and
// port, lower case, the port always written ("https://hooks.example.com:443").
func CallbackOrigin(callbackURL string) (string, error) {
	u, err := parseCallbackURL(callbackURL)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrCallbackRefused, err)
	}
	return u.scheme + "://" + net.JoinHostPort(u.host, u.port), nil
}

// CallbackKey is the key a result delivery to callbackURL is signed with:
// HMAC-SHA256(secret, "agentrun-callback-v1 " + CallbackOrigin), written in
// lower-case hex, whose 64 characters are the key's bytes. Each receiver
// holds its own key and checks deliveries with it (auth.VerifySignature);
// none can sign for another, since only the worker holds secret
// (AGENTRUN_CALLBACK_SECRET). An operator gives a receiver its key:
//
//	printf 'agentrun-callback-v1 %s' https://hooks.example.com:443 |
//	  openssl dgst -sha256 -hmac "$AGENTRUN_CALLBACK_SECRET" -r | cut -c1-64
func CallbackKey(secret []byte, callbackURL string) ([]byte, error) {
	origin, err := CallbackOrigin(callbackURL)
	if err != nil {
		return nil, err
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte("agentrun-callback-v1 " + origin))
	return []byte(hex.EncodeToString(mac.Sum(nil))), nil
}
