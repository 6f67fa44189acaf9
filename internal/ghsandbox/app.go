package ghsandbox

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v4"

	"github.com/agentrun/agentrun/internal/merchantsandbox"
)

// The GitHub App endpoints (SetApp): the app's own answer, the repository
// installation look-up and the installation token exchange.
const (
	OpGetApp                  = "get_app"
	OpGetRepoInstallation     = "get_repo_installation"
	OpCreateInstallationToken = "create_installation_token"
)

// appOps are the app's operations, which a fault can name too.
var appOps = []string{OpGetApp, OpGetRepoInstallation, OpCreateInstallationToken}

// Documentation links of the app's endpoints.
const (
	DocsGetApp             = "https://docs.github.com/rest/apps/apps#get-the-authenticated-app"
	DocsGetRepoInstall     = "https://docs.github.com/rest/apps/apps#get-a-repository-installation-for-the-authenticated-app"
	DocsCreateInstallToken = "https://docs.github.com/rest/apps/apps#create-an-installation-access-token-for-an-app"
	docsAppAuth            = "https://docs.github.com/apps/creating-github-apps/authenticating-with-a-github-app/generating-a-json-web-token-jwt-for-a-github-app"
)

// DefaultTokenLifetime is how long GitHub's installation tokens live.
const DefaultTokenLifetime = time.Hour

// maxJWTLifetime is GitHub's bound on a JWT's exp past now.
const maxJWTLifetime = 10 * time.Minute

// App is the GitHub App the sandbox speaks for (SetApp). JWTs are verified
// against PublicKey, as GitHub verifies them against the key the app's
// page holds.
type App struct {
	ID        int64
	Slug      string
	PublicKey *rsa.PublicKey
	// TokenLifetime is how long an installation token lives; zero is
	// GitHub's hour. A short one makes a token expire during a run.
	TokenLifetime time.Duration
	// NotInstalledOn are accounts (repository owners) the app is not
	// installed on; it is installed on every other owner of the fixture.
	NotInstalledOn []string
}

// appState is the app and what it issued; guarded by Server.mu.
type appState struct {
	App
	// installations maps a lower-cased owner to its installation's ID.
	installations map[string]int64
	tokens        map[string]installationToken
}

type installationToken struct {
	installation int64
	owner        string
	expires      time.Time
}

// SetApp makes the sandbox GitHub's side of app: GET /app, GET
// /repos/{owner}/{repo}/installation and POST
// /app/installations/{id}/access_tokens answer a JWT the app signed, and an
// installation token ("ghs_…") is accepted until it expires, on its
// account's repositories only. Everything written through the API is then
// written by the app's bot, "<slug>[bot]". A request with any other token
// is still the fixture's bot, as before.
func (s *Server) SetApp(app App) error {
	if app.ID <= 0 || app.Slug == "" || app.PublicKey == nil {
		return errors.New("ghsandbox: an app needs an ID, a slug and a public key")
	}
	if app.TokenLifetime <= 0 {
		app.TokenLifetime = DefaultTokenLifetime
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st := &appState{App: app, installations: map[string]int64{}, tokens: map[string]installationToken{}}
	owners := map[string]bool{}
	for _, rs := range s.repos {
		owners[strings.ToLower(rs.owner)] = true
	}
	for owner := range owners {
		if !slices.ContainsFunc(app.NotInstalledOn, func(o string) bool { return strings.EqualFold(o, owner) }) {
			st.installations[owner] = StableID("installation:" + owner)
		}
	}
	s.app = st
	s.botLogin = app.Slug + "[bot]"
	return nil
}

// InstallationID is the app's installation on owner's account, 0 when there
// is none.
func (s *Server) InstallationID(owner string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.app == nil {
		return 0
	}
	return s.app.installations[strings.ToLower(owner)]
}

// ExpireInstallationTokens ends every installation token issued so far,
// as if their hour had passed: the next request with one is refused with
// GitHub's 401, whatever the client believes of its expiry.
func (s *Server) ExpireInstallationTokens() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.app == nil {
		return 0
	}
	past := time.Now().Add(-time.Second)
	for k, tok := range s.app.tokens {
		tok.expires = past
		s.app.tokens[k] = tok
	}
	return len(s.app.tokens)
}

func (s *Server) appRoutes() {
	s.mux.Handle("GET /app", s.api(OpGetApp, s.asApp(DocsGetApp, s.getApp)))
	s.mux.Handle("GET /repos/{owner}/{repo}/installation", s.api(OpGetRepoInstallation, s.asApp(DocsGetRepoInstall, s.getRepoInstallation)))
	s.mux.Handle("POST /app/installations/{installation_id}/access_tokens", s.api(OpCreateInstallationToken, s.asApp(DocsCreateInstallToken, s.createInstallationToken)))
	s.mux.HandleFunc("POST "+ControlExpireTokensPath, s.expireTokensHandler)
}

// ControlExpireTokensPath ends every installation token issued so far
// (ExpireInstallationTokens).
const ControlExpireTokensPath = "/_sandbox/app/expire-tokens"

func (s *Server) expireTokensHandler(w http.ResponseWriter, _ *http.Request) {
	JSON(http.StatusOK, map[string]int{"expired": s.ExpireInstallationTokens()}).Write(w)
}

// asApp answers only a request that carries a JWT the app signed.
func (s *Server) asApp(docs string, answer func(*http.Request, *appState) Response) func(*http.Request) Response {
	return func(r *http.Request) Response {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.app == nil {
			return NotFound(docs)
		}
		if msg := s.app.verifyJWT(bearer(r), time.Now()); msg != "" {
			return Error(http.StatusUnauthorized, msg, docsAppAuth)
		}
		return answer(r, s.app)
	}
}

func bearer(r *http.Request) string {
	h := r.Header.Get("Authorization")
	for _, scheme := range []string{"Bearer ", "bearer ", "token ", "Token "} {
		if rest, ok := strings.CutPrefix(h, scheme); ok {
			return strings.TrimSpace(rest)
		}
	}
	return ""
}

// verifyJWT says, in GitHub's words, what is wrong with raw as the app's
// JWT; "" when nothing is.
func (a *appState) verifyJWT(raw string, now time.Time) string {
	if raw == "" {
		return "Requires authentication"
	}
	var claims jwt.RegisteredClaims
	parser := jwt.Parser{ValidMethods: []string{jwt.SigningMethodRS256.Alg()}, SkipClaimsValidation: true}
	if _, err := parser.ParseWithClaims(raw, &claims, func(*jwt.Token) (any, error) { return a.PublicKey, nil }); err != nil {
		return "A JSON web token could not be decoded"
	}
	switch {
	case claims.Issuer != strconv.FormatInt(a.ID, 10):
		return "Integration not found"
	case claims.ExpiresAt == nil || claims.IssuedAt == nil:
		return "'Expiration time' claim ('exp') and 'Issued at' claim ('iat') are required"
	case !now.Before(claims.ExpiresAt.Time):
		return "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires"
	case claims.ExpiresAt.Sub(now) > maxJWTLifetime+time.Minute:
		return "'Expiration time' claim ('exp') is too far in the future"
	case claims.IssuedAt.After(now.Add(time.Minute)):
		return "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued"
	}
	return ""
}

// authorize refuses a request whose installation token is unknown, expired
// or of another account, before its handler runs; any other credential is
// let through as the fixture's bot, as before the sandbox had an app.
func (s *Server) authorize(op string, r *http.Request) (Response, bool) {
	if slices.Contains(appOps, op) || slices.Contains(merchantsandbox.Ops, op) {
		return Response{}, true
	}
	tok := bearer(r)
	if !strings.HasPrefix(tok, "ghs_") {
		return Response{}, true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var it installationToken
	ok := false
	if s.app != nil {
		it, ok = s.app.tokens[tok]
	}
	if !ok || !time.Now().Before(it.expires) {
		return Error(http.StatusUnauthorized, "Bad credentials", DocsREST), false
	}
	if op == OpGetUser {
		return Error(http.StatusForbidden, "Resource not accessible by integration", "https://docs.github.com/rest/users/users#get-the-authenticated-user"), false
	}
	if owner := r.PathValue("owner"); owner != "" && !strings.EqualFold(owner, it.owner) {
		return NotFound(DocsREST), false
	}
	return Response{}, true
}

func (s *Server) getApp(r *http.Request, a *appState) Response {
	return JSON(http.StatusOK, newIntegration(BasesOf(r), a, s.appOwner()))
}

// appOwner is the account that owns the app: the first owner, by name, of
// the fixture's repositories. The caller holds s.mu.
func (s *Server) appOwner() string {
	owners := make([]string, 0, len(s.repos))
	for _, rs := range s.repos {
		owners = append(owners, rs.owner)
	}
	sort.Strings(owners)
	if len(owners) == 0 {
		return "sandbox"
	}
	return owners[0]
}

func (s *Server) getRepoInstallation(r *http.Request, a *appState) Response {
	rs, ok := s.repos[repoID(r.PathValue("owner"), r.PathValue("repo"))]
	if !ok {
		return NotFound(DocsGetRepoInstall)
	}
	id, installed := a.installations[strings.ToLower(rs.owner)]
	if !installed {
		return NotFound(DocsGetRepoInstall)
	}
	return JSON(http.StatusOK, newInstallation(BasesOf(r), a, id, rs.owner))
}

func (s *Server) createInstallationToken(r *http.Request, a *appState) Response {
	id, err := strconv.ParseInt(r.PathValue("installation_id"), 10, 64)
	owner := ""
	for o, inst := range a.installations {
		if err == nil && inst == id {
			owner = o
		}
	}
	if owner == "" {
		return NotFound(DocsCreateInstallToken)
	}
	var raw [20]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return Error(http.StatusInternalServerError, "could not mint a token", DocsCreateInstallToken)
	}
	token := "ghs_" + hex.EncodeToString(raw[:])
	expires := time.Now().Add(a.TokenLifetime).UTC().Truncate(time.Second)
	a.tokens[token] = installationToken{installation: id, owner: owner, expires: expires}
	return JSON(http.StatusCreated, InstallationToken{Token: token, ExpiresAt: expires.Format(time.RFC3339),
		Permissions: appPermissions(), RepositorySelection: "all"})
}

// InstallationToken is GitHub's installation-token.
type InstallationToken struct {
	Token               string            `json:"token"`
	ExpiresAt           string            `json:"expires_at"`
	Permissions         map[string]string `json:"permissions"`
	RepositorySelection string            `json:"repository_selection"`
}

// Integration is GitHub's integration: the app, as GET /app answers it.
type Integration struct {
	ID                 int64             `json:"id"`
	Slug               string            `json:"slug"`
	NodeID             string            `json:"node_id"`
	ClientID           string            `json:"client_id"`
	Owner              User              `json:"owner"`
	Name               string            `json:"name"`
	Description        *string           `json:"description"`
	ExternalURL        string            `json:"external_url"`
	HTMLURL            string            `json:"html_url"`
	CreatedAt          string            `json:"created_at"`
	UpdatedAt          string            `json:"updated_at"`
	Permissions        map[string]string `json:"permissions"`
	Events             []string          `json:"events"`
	InstallationsCount int               `json:"installations_count"`
}

// Installation is GitHub's installation of an app on an account.
type Installation struct {
	ID                  int64             `json:"id"`
	Account             User              `json:"account"`
	RepositorySelection string            `json:"repository_selection"`
	AccessTokensURL     string            `json:"access_tokens_url"`
	RepositoriesURL     string            `json:"repositories_url"`
	HTMLURL             string            `json:"html_url"`
	AppID               int64             `json:"app_id"`
	AppSlug             string            `json:"app_slug"`
	TargetID            int64             `json:"target_id"`
	TargetType          string            `json:"target_type"`
	Permissions         map[string]string `json:"permissions"`
	Events              []string          `json:"events"`
	CreatedAt           string            `json:"created_at"`
	UpdatedAt           string            `json:"updated_at"`
	SingleFileName      *string           `json:"single_file_name"`
	SuspendedBy         *User             `json:"suspended_by"`
	SuspendedAt         *string           `json:"suspended_at"`
}

// appPermissions are the permissions docs/github-app.md's manifest asks.
func appPermissions() map[string]string {
	return map[string]string{"pull_requests": "write", "issues": "write", "checks": "write", "metadata": "read"}
}

var appEvents = []string{"check_run", "issue_comment", "pull_request"}

func newIntegration(b Bases, a *appState, owner string) Integration {
	created := accountsCreated.Format(time.RFC3339)
	return Integration{
		ID: a.ID, Slug: a.Slug, NodeID: NodeID("A", a.ID), ClientID: fmt.Sprintf("Iv1.%016x", a.ID),
		Owner: NewUser(b, owner), Name: a.Slug, ExternalURL: b.Web, HTMLURL: b.Web + "/apps/" + a.Slug,
		CreatedAt: created, UpdatedAt: created, Permissions: appPermissions(), Events: appEvents,
		InstallationsCount: len(a.installations),
	}
}

func newInstallation(b Bases, a *appState, id int64, owner string) Installation {
	created := accountsCreated.Format(time.RFC3339)
	account := NewUser(b, owner)
	return Installation{
		ID: id, Account: account, RepositorySelection: "all",
		AccessTokensURL: b.API + "/app/installations/" + itoa(id) + "/access_tokens",
		RepositoriesURL: b.API + "/installation/repositories",
		HTMLURL:         b.Web + "/settings/installations/" + itoa(id),
		AppID:           a.ID, AppSlug: a.Slug, TargetID: account.ID, TargetType: "Organization",
		Permissions: appPermissions(), Events: appEvents, CreatedAt: created, UpdatedAt: created,
	}
}
