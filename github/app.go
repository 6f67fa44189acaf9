package github

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/bradleyfalzon/ghinstallation/v2"
	gogithub "github.com/google/go-github/v62/github"
)

// NewAppAccess is the access of a GitHub App (app mode): every request
// carries an installation token of the installation on its repository,
// minted by ghinstallation and refreshed a minute before it expires. The
// installation is the target's (api.Target.InstallationID, from the
// delivery that started the run) or, when zero, GitHub's answer to GET
// /repos/{owner}/{repo}/installation, asked once per repository. Tokens
// live in this process's memory only: never in a run's input or history.
//
// botLogin, when set (GITHUB_BOT_LOGIN), must be the app's bot login, which
// Identify reads from GET /app: "<slug>[bot]".
func NewAppAccess(creds Credentials, allowed RepoAllowlist, botLogin string) (*Access, error) {
	if !creds.AppMode() || creds.AppKey == nil {
		return nil, errors.New("GitHub App access needs GITHUB_APP_ID and the app's private key")
	}
	template, err := NewClient(creds.APIURL, "")
	if err != nil {
		return nil, err
	}
	apps := ghinstallation.NewAppsTransportFromPrivateKey(transport, creds.AppID, creds.AppKey)
	apps.BaseURL = strings.TrimSuffix(template.BaseURL.String(), "/")
	src := &appSource{template: template, apps: apps, appID: creds.AppID,
		installations: map[string]int64{}, tokens: map[int64]*ghinstallation.Transport{}}
	return &Access{clients: src.client, allowed: allowed, botLogin: botLogin, baseURL: template.BaseURL.String(),
		whoAmI: src.botLogin, appMode: true}, nil
}

// Open is the access creds describe: app mode when they name an app, token
// mode (NewClient, NewAccess) otherwise.
func Open(creds Credentials, allowed RepoAllowlist, botLogin string) (*Access, error) {
	if creds.AppMode() {
		return NewAppAccess(creds, allowed, botLogin)
	}
	gh, err := NewClient(creds.APIURL, creds.Token)
	if err != nil {
		return nil, err
	}
	return NewAccess(gh, allowed, botLogin), nil
}

// appSource is app mode's clientSource: the installations it has looked
// up and a token transport per installation.
type appSource struct {
	template *gogithub.Client
	apps     *ghinstallation.AppsTransport
	appID    int64

	mu            sync.Mutex
	installations map[string]int64
	tokens        map[int64]*ghinstallation.Transport
}

func (s *appSource) client(owner, repo string, installation int64) (*gogithub.Client, error) {
	return s.withTransport(&installationTransport{src: s, owner: owner, repo: repo, installation: installation}), nil
}

// appClient authenticates as the app itself (a JWT): GET /app and the
// installation look-up.
func (s *appSource) appClient() *gogithub.Client { return s.withTransport(s.apps) }

func (s *appSource) withTransport(rt http.RoundTripper) *gogithub.Client {
	c := gogithub.NewClient(&http.Client{Timeout: githubHTTPTimeout, CheckRedirect: followReadsOnly, Transport: rt})
	c.BaseURL, c.UploadURL, c.UserAgent = s.template.BaseURL, s.template.UploadURL, s.template.UserAgent
	return c
}

// botLogin is "<slug>[bot]", the login an installation token writes as.
func (s *appSource) botLogin(ctx context.Context) (string, error) {
	app, _, err := s.appClient().Apps.Get(ctx, "")
	if err != nil {
		var resp *gogithub.ErrorResponse
		if errors.As(err, &resp) && resp.Response != nil && resp.Response.StatusCode == http.StatusUnauthorized {
			return "", &AppAuthError{Status: resp.Response.StatusCode, msg: fmt.Sprintf(
				"GitHub refused the app's JWT (GET /app: 401 %s): GITHUB_APP_ID %d is not the app this private key belongs to, "+
					"or the key was deleted from the app's settings", resp.Message, s.appID)}
		}
		return "", ClassifyError("read the GitHub App (GET /app)", err)
	}
	if app.GetSlug() == "" {
		return "", errors.New("read the GitHub App (GET /app): the answer names no slug")
	}
	return app.GetSlug() + "[bot]", nil
}

// installationOf is the installation on owner/repo, asked of GitHub once.
func (s *appSource) installationOf(ctx context.Context, owner, repo string) (int64, error) {
	key := strings.ToLower(owner + "/" + repo)
	s.mu.Lock()
	id, ok := s.installations[key]
	s.mu.Unlock()
	if ok {
		return id, nil
	}
	inst, _, err := s.appClient().Apps.FindRepositoryInstallation(ctx, owner, repo)
	if err != nil {
		var resp *gogithub.ErrorResponse
		if errors.As(err, &resp) && resp.Response != nil {
			switch resp.Response.StatusCode {
			case http.StatusNotFound:
				return 0, &AppAuthError{Status: http.StatusNotFound, msg: fmt.Sprintf(
					"the GitHub App %d is not installed on %s/%s (GET /repos/%s/%s/installation: 404): install it on the repository, "+
						"or take the repository out of the run", s.appID, owner, repo, owner, repo)}
			case http.StatusUnauthorized:
				return 0, &AppAuthError{Status: http.StatusUnauthorized, msg: fmt.Sprintf(
					"GitHub refused the app's JWT (GET /repos/%s/%s/installation: 401 %s): check GITHUB_APP_ID %d and its private key",
					owner, repo, resp.Message, s.appID)}
			}
		}
		return 0, fmt.Errorf("look up the GitHub App's installation on %s/%s: %w", owner, repo, err)
	}
	s.mu.Lock()
	s.installations[key] = inst.GetID()
	s.mu.Unlock()
	return inst.GetID(), nil
}

// transport is the installation's token transport, made once: it keeps
// its token until a minute before expiry, then mints another.
func (s *appSource) transport(id int64) *ghinstallation.Transport {
	s.mu.Lock()
	defer s.mu.Unlock()
	tr, ok := s.tokens[id]
	if !ok {
		tr = ghinstallation.NewFromAppsTransport(s.apps, id)
		tr.BaseURL = s.apps.BaseURL
		s.tokens[id] = tr
	}
	return tr
}

// forget drops the installation's transport, so that the next request
// mints a new token; only tr, not one another request already replaced.
func (s *appSource) forget(id int64, tr *ghinstallation.Transport) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tokens[id] == tr {
		delete(s.tokens, id)
	}
}

// installationTransport sends a request with a token of the installation
// on its repository.
type installationTransport struct {
	src          *appSource
	owner, repo  string
	installation int64
}

func (t *installationTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	id := t.installation
	if id == 0 {
		var err error
		if id, err = t.src.installationOf(req.Context(), t.owner, t.repo); err != nil {
			closeBody(req)
			return nil, err
		}
	}
	retry, err := replayable(req)
	if err != nil {
		return nil, err
	}
	tr := t.src.transport(id)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		return nil, t.src.tokenError(id, err)
	}
	if resp.StatusCode != http.StatusUnauthorized || retry == nil {
		return resp, nil
	}
	// The token was refused before it expired by this process's clock:
	// revoked, or GitHub's clock is ahead. A 401 proves nothing happened,
	// so the request goes once more, with a token minted now.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	_ = resp.Body.Close()
	t.src.forget(id, tr)
	resp, err = t.src.transport(id).RoundTrip(retry)
	if err != nil {
		return nil, t.src.tokenError(id, err)
	}
	return resp, nil
}

// replayable is a copy of req to send again, or nil when its body cannot be
// read twice.
func replayable(req *http.Request) (*http.Request, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return req.Clone(req.Context()), nil
	}
	if req.GetBody == nil {
		return nil, nil
	}
	body, err := req.GetBody()
	if err != nil {
		closeBody(req)
		return nil, fmt.Errorf("copy the request's body: %w", err)
	}
	again := req.Clone(req.Context())
	again.Body = body
	return again, nil
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
}

// tokenError names what is wrong with a token exchange GitHub refused.
func (s *appSource) tokenError(id int64, err error) error {
	var httpErr *ghinstallation.HTTPError
	if !errors.As(err, &httpErr) || httpErr.Response == nil {
		return err
	}
	resp := httpErr.Response
	var body struct {
		Message string `json:"message"`
	}
	if resp.Body != nil {
		_ = json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&body)
		_ = resp.Body.Close()
	}
	status := resp.StatusCode
	route := fmt.Sprintf("POST /app/installations/%d/access_tokens: %d %s", id, status, body.Message)
	switch status {
	case http.StatusUnauthorized:
		return &AppAuthError{Status: status, msg: fmt.Sprintf("GitHub refused the app's JWT (%s): GITHUB_APP_ID %d is not the app "+
			"this private key belongs to, or the key was deleted", route, s.appID)}
	case http.StatusNotFound:
		return &AppAuthError{Status: status, msg: fmt.Sprintf("installation %d of the GitHub App %d is gone (%s): "+
			"the app was uninstalled from the repository's account", id, s.appID, route)}
	case http.StatusForbidden, http.StatusUnprocessableEntity:
		return &AppAuthError{Status: status, msg: fmt.Sprintf("GitHub refused an installation token (%s)", route)}
	}
	return fmt.Errorf("mint an installation token (%s): %w", route, err)
}

// AppAuthError is GitHub refusing the app itself: its JWT (a wrong app ID
// or key), or an installation that is not there. Nothing was sent on the
// request's behalf, and sending it again changes nothing: ClassifyError
// makes it a non-retryable rejection.
type AppAuthError struct {
	Status int
	msg    string
}

func (e *AppAuthError) Error() string { return e.msg }
