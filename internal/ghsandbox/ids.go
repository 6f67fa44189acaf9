// Package wire is what the sandbox's REST answers look like on the wire:
// GitHub's objects as its REST description (API version 2022-11-28) defines
// them, built once each here; its error bodies, rate-limit answers and
// headers; pagination and its Link header; the web and API base URLs. It
// knows nothing of the sandbox's state: handlers pass it facts.
package ghsandbox

import (
	"encoding/base64"
	"fmt"
	"hash/fnv"
	"net/http"
	"strconv"
)

// StableID derives a GitHub-like numeric ID from a name, so that the same
// fixture always yields the same IDs.
func StableID(name string) int64 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(name))
	return int64(h.Sum32()%900000000) + 100000000
}

// NodeID is a GraphQL node ID of GitHub's legacy shape: a kind prefix and
// the base64 of the numeric ID.
func NodeID(kind string, id int64) string {
	return kind + "_" + base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, "%d", id))
}

// Bases are the roots every link in an answer is built on: the sandbox's
// stand-in for https://github.com and the API root the client used.
type Bases struct {
	Web string
	API string
}

// BasesOf is the bases of the request being answered.
func BasesOf(r *http.Request) Bases {
	return Bases{Web: WebBase(r), API: APIBase(r)}
}

// RepoRef names a repository in answers.
type RepoRef struct {
	Owner         string
	Name          string
	DefaultBranch string
}

// Full is owner/name.
func (r RepoRef) Full() string { return r.Owner + "/" + r.Name }

func (b Bases) repoAPI(repo RepoRef) string { return b.API + "/repos/" + repo.Full() }

func (b Bases) repoWeb(repo RepoRef) string { return b.Web + "/" + repo.Full() }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
