package api_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

func TestCallbackAllowListComparesParsedPartsNotStrings(t *testing.T) {
	list, err := api.ParseCallbackAllowList("https://ok.example.com/hooks, http://intranet.example:8080/")
	require.NoError(t, err)
	for _, allowed := range []string{
		"https://ok.example.com/hooks",
		"https://ok.example.com/hooks/run-1?token=x",
		"https://OK.example.com:443/hooks/a",
		"http://intranet.example:8080/anything",
	} {
		require.NoError(t, list.Check(allowed), allowed)
	}
	for _, refused := range []string{
		"https://ok.example.com.evil.com/hooks",
		"https://ok.example.com@evil.com/hooks",
		"https://user:pw@ok.example.com/hooks",
		"https://ok.example.com/hooksevil",
		"https://ok.example.com/hooks/../admin",
		"https://ok.example.com/hooks/%2e%2e/admin",
		"https://ok.example.com:8443/hooks",
		"http://ok.example.com/hooks",
		"http://intranet.example/",
		"ftp://ok.example.com/hooks",
		"//ok.example.com/hooks",
		"https://ok.example.com/hooks#x",
	} {
		require.ErrorIs(t, list.Check(refused), api.ErrCallbackRefused, refused)
	}
}

func TestEmptyCallbackAllowListRefusesEveryURLNamingTheSetting(t *testing.T) {
	list, err := api.ParseCallbackAllowList("")
	require.NoError(t, err)
	err = list.Check("https://ok.example.com/hooks")
	require.ErrorContains(t, err, api.EnvCallbackAllowed)
}

func TestHTTPCallbackGoesToLoopbackUnderAnHTTPSPrefixOnly(t *testing.T) {
	list, err := api.ParseCallbackAllowList("https://127.0.0.1:9000/")
	require.NoError(t, err)
	require.NoError(t, list.Check("http://127.0.0.1:9000/cb"))
}

func TestCallbackAllowListRefusesAPrefixWithUserInfoOrQuery(t *testing.T) {
	for _, bad := range []string{"https://u:p@ok.example.com/", "https://ok.example.com/?a=1", "ok.example.com"} {
		_, err := api.ParseCallbackAllowList(bad)
		require.Error(t, err, bad)
	}
}

func TestEachCallbackReceiverHasItsOwnKeyDerivedFromItsOrigin(t *testing.T) {
	secret := []byte("callback-secret-of-at-least-32-bytes!")
	key := func(u string) string {
		t.Helper()
		k, err := api.CallbackKey(secret, u)
		require.NoError(t, err)
		return string(k)
	}

	// The value docs/using.md's openssl line gives for this secret and origin.
	require.Equal(t, "0169cb882dcf74d939632545d541db2fc36e1c0f888aa3c4785816e1867e2020", key("https://hooks.example.com/agentrun/"))
	require.Equal(t, key("https://hooks.example.com/agentrun/"), key("HTTPS://Hooks.Example.COM:443/other?run=1"), "one origin, one key")
	for _, other := range []string{"https://hooks.example.com:8443/agentrun/", "http://hooks.example.com/agentrun/", "https://evil.example.com/agentrun/", "https://hooks.example.com.evil.com/agentrun/"} {
		require.NotEqual(t, key("https://hooks.example.com/agentrun/"), key(other), other)
	}
	require.NotEqual(t, string(secret), key("https://hooks.example.com/"), "a receiver never holds the worker's secret")
	_, err := api.CallbackKey(secret, "https://user@hooks.example.com/")
	require.ErrorIs(t, err, api.ErrCallbackRefused)
}
