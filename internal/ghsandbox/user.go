package ghsandbox

import (
	"strings"
	"time"
)

// User is GitHub's simple-user: how every author, owner and assignee appears.
type User struct {
	Login             string  `json:"login"`
	ID                int64   `json:"id"`
	NodeID            string  `json:"node_id"`
	AvatarURL         string  `json:"avatar_url"`
	GravatarID        *string `json:"gravatar_id"`
	URL               string  `json:"url"`
	HTMLURL           string  `json:"html_url"`
	FollowersURL      string  `json:"followers_url"`
	FollowingURL      string  `json:"following_url"`
	GistsURL          string  `json:"gists_url"`
	StarredURL        string  `json:"starred_url"`
	SubscriptionsURL  string  `json:"subscriptions_url"`
	OrganizationsURL  string  `json:"organizations_url"`
	ReposURL          string  `json:"repos_url"`
	EventsURL         string  `json:"events_url"`
	ReceivedEventsURL string  `json:"received_events_url"`
	Type              string  `json:"type"`
	SiteAdmin         bool    `json:"site_admin"`
}

// NewUser is the simple-user for login; a login ending in [bot] is a Bot,
// as GitHub Apps are.
func NewUser(b Bases, login string) User {
	id := StableID("user:" + login)
	kind := "User"
	if strings.HasSuffix(login, "[bot]") {
		kind = "Bot"
	}
	api := b.API + "/users/" + login
	empty := ""
	return User{
		Login:             login,
		ID:                id,
		NodeID:            NodeID("U", id),
		AvatarURL:         b.Web + "/avatars/u/" + itoa(id) + "?v=4",
		GravatarID:        &empty,
		URL:               api,
		HTMLURL:           b.Web + "/" + login,
		FollowersURL:      api + "/followers",
		FollowingURL:      api + "/following{/other_user}",
		GistsURL:          api + "/gists{/gist_id}",
		StarredURL:        api + "/starred{/owner}{/repo}",
		SubscriptionsURL:  api + "/subscriptions",
		OrganizationsURL:  api + "/orgs",
		ReposURL:          api + "/repos",
		EventsURL:         api + "/events{/privacy}",
		ReceivedEventsURL: api + "/received_events",
		Type:              kind,
		SiteAdmin:         false,
	}
}

// AuthenticatedUser is GitHub's private-user, the answer of GET /user.
type AuthenticatedUser struct {
	User
	Name                    *string   `json:"name"`
	Company                 *string   `json:"company"`
	Blog                    *string   `json:"blog"`
	Location                *string   `json:"location"`
	Email                   *string   `json:"email"`
	Hireable                *bool     `json:"hireable"`
	Bio                     *string   `json:"bio"`
	PublicRepos             int       `json:"public_repos"`
	PublicGists             int       `json:"public_gists"`
	Followers               int       `json:"followers"`
	Following               int       `json:"following"`
	CreatedAt               time.Time `json:"created_at"`
	UpdatedAt               time.Time `json:"updated_at"`
	PrivateGists            int       `json:"private_gists"`
	TotalPrivateRepos       int       `json:"total_private_repos"`
	OwnedPrivateRepos       int       `json:"owned_private_repos"`
	DiskUsage               int       `json:"disk_usage"`
	Collaborators           int       `json:"collaborators"`
	TwoFactorAuthentication bool      `json:"two_factor_authentication"`
}

// accountsCreated is when every sandbox account says it was made: a fixed
// time keeps answers reproducible.
var accountsCreated = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

// NewAuthenticatedUser is the token's user as GET /user shows it.
func NewAuthenticatedUser(b Bases, login string) AuthenticatedUser {
	return AuthenticatedUser{User: NewUser(b, login), CreatedAt: accountsCreated, UpdatedAt: accountsCreated}
}

// CollaboratorPermission is GitHub's repository-collaborator-permission.
// go-github v62's type lacks the role_name GitHub sends with it.
type CollaboratorPermission struct {
	Permission string       `json:"permission"`
	RoleName   string       `json:"role_name"`
	User       Collaborator `json:"user"`
}

// Collaborator is a simple-user with the role it holds on the repository.
type Collaborator struct {
	User
	RoleName string `json:"role_name"`
}

// NewCollaboratorPermission is login's permission on a repository.
func NewCollaboratorPermission(b Bases, login, permission string) CollaboratorPermission {
	return CollaboratorPermission{
		Permission: permission,
		RoleName:   permission,
		User:       Collaborator{User: NewUser(b, login), RoleName: permission},
	}
}
