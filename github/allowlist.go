package github

import (
	"fmt"
	"strings"

	"github.com/agentrun/agentrun/api"
)

// RepoAllowlist is the set of repositories a worker may touch, as lower-cased
// "owner/repo". An empty list allows every repository.
type RepoAllowlist []string

// ParseRepoAllowlist reads a comma-separated list of owner/repo names, as
// AGENT_ALLOWED_REPOS holds it. Blank around entries is ignored; an entry that
// is not owner/repo is an error, so that a typo does not silently shut the
// worker out of the repository it was meant for (or, worse, allow all).
func ParseRepoAllowlist(raw string) (RepoAllowlist, error) {
	if raw == "" {
		return nil, nil
	}
	var list RepoAllowlist
	for i, entry := range strings.Split(raw, ",") {
		entry = strings.TrimSpace(entry)
		owner, repo, ok := strings.Cut(entry, "/")
		if !ok || !validRepoNamePart(owner) || !validRepoNamePart(repo) {
			return nil, fmt.Errorf("entry %d %q is not owner/repo (letters, digits, '-', '_' and '.')", i+1, entry)
		}
		list = append(list, asciiLowerString(entry))
	}
	return list, nil
}

// validRepoNamePart accepts the characters GitHub allows in owner and
// repository names; a wildcard or a URL is refused rather than half-understood.
func validRepoNamePart(s string) bool {
	if s == "" || s == "." || s == ".." {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

func asciiLowerString(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + ('a' - 'A')
		}
	}
	return string(b)
}

// Allows reports whether t's repository is on the list (or the list is empty).
func (l RepoAllowlist) Allows(t api.Target) bool {
	if len(l) == 0 {
		return true
	}
	want := t.Owner + "/" + t.Repo
	for _, entry := range l {
		if api.SameLogin(entry, want) {
			return true
		}
	}
	return false
}
