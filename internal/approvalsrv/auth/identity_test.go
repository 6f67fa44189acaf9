package auth

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func proxyAt(t *testing.T, cidrs string) Proxy {
	t.Helper()
	trusted, err := ParseTrustedProxies(cidrs)
	require.NoError(t, err)
	return Proxy{Header: "X-Forwarded-User", Trusted: trusted}
}

func requestFrom(peer string, users ...string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/runs/run-1", nil)
	r.RemoteAddr = peer
	for _, u := range users {
		r.Header.Add("X-Forwarded-User", u)
	}
	return r
}

func refusalCode(t *testing.T, err error) int {
	t.Helper()
	var refusal *Refusal
	require.ErrorAs(t, err, &refusal)
	return refusal.Code
}

func TestIdentityIsTheProxysUserFromATrustedPeerOnly(t *testing.T) {
	p := proxyAt(t, "10.0.0.0/8, 192.0.2.7")

	for _, peer := range []string{"10.1.2.3:5000", "192.0.2.7:80", "[::ffff:10.0.0.1]:80"} {
		user, err := p.Identify(requestFrom(peer, " alice "), quiet)
		require.NoError(t, err, peer)
		require.Equal(t, "alice", user, peer)
	}
	for _, peer := range []string{"192.0.2.8:80", "11.0.0.1:80", "not-an-address"} {
		_, err := p.Identify(requestFrom(peer, "alice"), quiet)
		require.Equal(t, http.StatusUnauthorized, refusalCode(t, err), peer)
	}
	user, err := p.Identify(requestFrom("11.0.0.1:80"), quiet)
	require.NoError(t, err, "no header is no identity, from anyone")
	require.Empty(t, user)
}

func TestIdentityNamingTwoUsersOrOneThatIsNoGitHubLoginIsRefused(t *testing.T) {
	p := proxyAt(t, "10.0.0.0/8")
	for name, users := range map[string][]string{
		"twice":           {"alice", "mallory"},
		"comma-separated": {"mallory, alice"},
		"control":         {"ali\x01ce"},
		"invalid UTF-8":   {"ali\xffce"},
		"too long":        {strings.Repeat("a", MaxNameLength+1)},
		"past 39":         {strings.Repeat("a", 40)},
		"long s":          {"ſam"},
		"Kelvin sign":     {"\u212Aate"},
		"e-mail address":  {"alice@example.com"},
		"double hyphen":   {"al--ice"},
		"leading hyphen":  {"-alice"},
		"inner space":     {"ali ce"},
	} {
		_, err := p.Identify(requestFrom("10.0.0.1:1", users...), quiet)
		require.Equal(t, http.StatusBadRequest, refusalCode(t, err), name)
	}
	for _, login := range []string{strings.Repeat("a", 39), "Kate", "sam-1", "deploy[bot]"} {
		user, err := p.Identify(requestFrom("10.0.0.1:1", login), quiet)
		require.NoError(t, err, login)
		require.Equal(t, login, user)
	}
}

func TestTrustedProxiesTakeCIDRsAndBareAddresses(t *testing.T) {
	got, err := ParseTrustedProxies(" 10.0.0.5/8 ,, ::1, 192.0.2.7")
	require.NoError(t, err)
	require.Equal(t, []netip.Prefix{
		netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128"), netip.MustParsePrefix("192.0.2.7/32"),
	}, got)

	_, err = ParseTrustedProxies("10.0.0.0/8,proxy.internal")
	require.ErrorContains(t, err, "APPROVAL_TRUSTED_PROXIES")
}

func TestIdentityTravelsInTheContext(t *testing.T) {
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	require.Empty(t, IdentityFrom(r.Context()))
	require.Equal(t, "alice", IdentityFrom(WithIdentity(r.Context(), "alice")))
}

// A name of MaxNameLength bytes is read and judged as a login, and the
// proxy is told it names no GitHub user; one byte more is refused unread.
func TestANameAtTheLengthLimitIsJudgedAsALoginAndOnePastItIsUnusable(t *testing.T) {
	p := proxyAt(t, "10.0.0.0/8")
	for name, want := range map[string]string{
		strings.Repeat("a", MaxNameLength):   "The login proxy sent a user name that is not a GitHub login; it must name GitHub users.",
		strings.Repeat("a", MaxNameLength+1): "The login proxy sent an unusable user name.",
	} {
		_, err := p.Identify(requestFrom("10.0.0.1:1", name), quiet)
		var refusal *Refusal
		require.ErrorAs(t, err, &refusal, "%d bytes", len(name))
		require.Equal(t, http.StatusBadRequest, refusal.Code, "%d bytes", len(name))
		require.Equal(t, want, refusal.Message, "%d bytes", len(name))
	}
}
