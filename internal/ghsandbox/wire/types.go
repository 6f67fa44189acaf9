// Package wire is what the sandbox's REST answers look like on the wire
// beyond go-github's own types (which the sandbox answers with): GitHub's
// error bodies, rate-limit answers and headers, pagination and its Link
// header, the web and API base URLs. It knows nothing of the sandbox's state.
package wire

import "github.com/google/go-github/v62/github"

// Permission is GET /repos/{owner}/{repo}/collaborators/{username}/permission.
// go-github v62's type lacks the role_name GitHub sends with it.
type Permission struct {
	github.RepositoryPermissionLevel
	RoleName string `json:"role_name"`
}
