package auth

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentrun/agentrun/runclient"
)

// MaxNameLength bounds a user name from the login proxy: it becomes the
// approver of a decision, whose field has the same limit.
const MaxNameLength = 100

// SignInFirst is what a page answers a caller the login proxy did not vouch for.
const SignInFirst = "Sign in first: open this page through the login proxy."

// Refusal is an identity the server will not take, with the status code to
// answer; Message is written for the caller.
type Refusal struct {
	Code    int
	Message string
}

func (r *Refusal) Error() string { return r.Message }

// Proxy is the login proxy the pages trust: the header it sets to the
// logged-in user, and the peers it connects from. Anyone else can type the
// header, so it is believed from those peers only.
type Proxy struct {
	Header  string
	Trusted []netip.Prefix
}

// ParseTrustedProxies reads comma-separated CIDRs; a bare address stands for
// itself alone. Its errors name APPROVAL_TRUSTED_PROXIES.
func ParseTrustedProxies(raw string) ([]netip.Prefix, error) {
	var prefixes []netip.Prefix
	for _, field := range strings.Split(raw, ",") {
		field = strings.TrimSpace(field)
		if field == "" {
			continue
		}
		prefix, err := netip.ParsePrefix(field)
		if err != nil {
			addr, addrErr := netip.ParseAddr(field)
			if addrErr != nil {
				return nil, fmt.Errorf("APPROVAL_TRUSTED_PROXIES: %q is not a CIDR such as 10.0.0.0/8 or an address: %w", field, err)
			}
			prefix = netip.PrefixFrom(addr.Unmap(), addr.Unmap().BitLen())
		}
		prefixes = append(prefixes, prefix.Masked())
	}
	return prefixes, nil
}

// Trusts reports whether peer, a request's RemoteAddr, is a trusted proxy.
func (p Proxy) Trusts(peer string) bool {
	addrPort, err := netip.ParseAddrPort(peer)
	if err != nil {
		return false
	}
	addr := addrPort.Addr().Unmap()
	for _, prefix := range p.Trusted {
		if prefix.Contains(addr) {
			return true
		}
	}
	return false
}

// Identify reads the user the login proxy names; "" when the request names
// none. The header is believed only from a trusted proxy and only once: two
// values mean a proxy appended to a header the client sent.
func (p Proxy) Identify(r *http.Request, logger *slog.Logger) (string, error) {
	if p.Header == "" {
		return "", nil
	}
	values := r.Header.Values(p.Header)
	if len(values) == 0 {
		return "", nil
	}
	if !p.Trusts(r.RemoteAddr) {
		logger.Warn("identity header from an untrusted peer", "peer", r.RemoteAddr, "header", p.Header)
		return "", &Refusal{Code: http.StatusUnauthorized, Message: SignInFirst}
	}
	if len(values) > 1 || strings.Contains(values[0], ",") {
		logger.Warn("identity header repeated", "peer", r.RemoteAddr, "header", p.Header)
		return "", &Refusal{Code: http.StatusBadRequest, Message: "The login proxy sent more than one user."}
	}
	identity := strings.TrimSpace(values[0])
	if len(identity) > MaxNameLength || !utf8.ValidString(identity) || strings.ContainsFunc(identity, unicode.IsControl) {
		return "", &Refusal{Code: http.StatusBadRequest, Message: "The login proxy sent an unusable user name."}
	}
	// The identity becomes an approver, a requester to match and a login
	// whose GitHub permission is asked: anything but a GitHub login ("ſam",
	// an e-mail address) would be matched or looked up as someone else.
	if !runclient.ValidLogin(identity) {
		logger.Warn("identity header is not a GitHub login", "peer", r.RemoteAddr, "header", p.Header)
		return "", &Refusal{Code: http.StatusBadRequest, Message: "The login proxy sent a user name that is not a GitHub login; it must name GitHub users."}
	}
	return identity, nil
}

type identityKey struct{}

// WithIdentity is ctx carrying the user a page's guard authenticated.
func WithIdentity(ctx context.Context, identity string) context.Context {
	return context.WithValue(ctx, identityKey{}, identity)
}

// IdentityFrom is the user the page guard authenticated; empty in dev mode
// without a proxy, and on routes that are not pages.
func IdentityFrom(ctx context.Context) string {
	identity, _ := ctx.Value(identityKey{}).(string)
	return identity
}
