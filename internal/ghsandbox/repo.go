package ghsandbox

import (
	"strings"
	"time"
)

// Repository is GitHub's repository object, as pull requests' head and base
// carry it.
type Repository struct {
	ID               int64      `json:"id"`
	NodeID           string     `json:"node_id"`
	Name             string     `json:"name"`
	FullName         string     `json:"full_name"`
	License          any        `json:"license"` // the sandbox's repositories have none: null
	Forks            int        `json:"forks"`
	Owner            User       `json:"owner"`
	Private          bool       `json:"private"`
	HTMLURL          string     `json:"html_url"`
	Description      *string    `json:"description"`
	Fork             bool       `json:"fork"`
	URL              string     `json:"url"`
	ArchiveURL       string     `json:"archive_url"`
	AssigneesURL     string     `json:"assignees_url"`
	BlobsURL         string     `json:"blobs_url"`
	BranchesURL      string     `json:"branches_url"`
	CollaboratorsURL string     `json:"collaborators_url"`
	CommentsURL      string     `json:"comments_url"`
	CommitsURL       string     `json:"commits_url"`
	CompareURL       string     `json:"compare_url"`
	ContentsURL      string     `json:"contents_url"`
	ContributorsURL  string     `json:"contributors_url"`
	DeploymentsURL   string     `json:"deployments_url"`
	DownloadsURL     string     `json:"downloads_url"`
	EventsURL        string     `json:"events_url"`
	ForksURL         string     `json:"forks_url"`
	GitCommitsURL    string     `json:"git_commits_url"`
	GitRefsURL       string     `json:"git_refs_url"`
	GitTagsURL       string     `json:"git_tags_url"`
	GitURL           string     `json:"git_url"`
	IssueCommentURL  string     `json:"issue_comment_url"`
	IssueEventsURL   string     `json:"issue_events_url"`
	IssuesURL        string     `json:"issues_url"`
	KeysURL          string     `json:"keys_url"`
	LabelsURL        string     `json:"labels_url"`
	LanguagesURL     string     `json:"languages_url"`
	MergesURL        string     `json:"merges_url"`
	MilestonesURL    string     `json:"milestones_url"`
	NotificationsURL string     `json:"notifications_url"`
	PullsURL         string     `json:"pulls_url"`
	ReleasesURL      string     `json:"releases_url"`
	SSHURL           string     `json:"ssh_url"`
	StargazersURL    string     `json:"stargazers_url"`
	StatusesURL      string     `json:"statuses_url"`
	SubscribersURL   string     `json:"subscribers_url"`
	SubscriptionURL  string     `json:"subscription_url"`
	TagsURL          string     `json:"tags_url"`
	TeamsURL         string     `json:"teams_url"`
	TreesURL         string     `json:"trees_url"`
	CloneURL         string     `json:"clone_url"`
	MirrorURL        *string    `json:"mirror_url"`
	HooksURL         string     `json:"hooks_url"`
	SvnURL           string     `json:"svn_url"`
	Homepage         *string    `json:"homepage"`
	Language         *string    `json:"language"`
	ForksCount       int        `json:"forks_count"`
	StargazersCount  int        `json:"stargazers_count"`
	WatchersCount    int        `json:"watchers_count"`
	Size             int        `json:"size"`
	DefaultBranch    string     `json:"default_branch"`
	OpenIssuesCount  int        `json:"open_issues_count"`
	HasIssues        bool       `json:"has_issues"`
	HasProjects      bool       `json:"has_projects"`
	HasWiki          bool       `json:"has_wiki"`
	HasPages         bool       `json:"has_pages"`
	HasDownloads     bool       `json:"has_downloads"`
	Archived         bool       `json:"archived"`
	Disabled         bool       `json:"disabled"`
	Visibility       string     `json:"visibility"`
	PushedAt         *time.Time `json:"pushed_at"`
	CreatedAt        *time.Time `json:"created_at"`
	UpdatedAt        *time.Time `json:"updated_at"`
	OpenIssues       int        `json:"open_issues"`
	Watchers         int        `json:"watchers"`
}

// NewRepository is repo as GitHub describes a public repository; openIssues
// counts its open issues and pull requests, as GitHub's open_issues does.
func NewRepository(b Bases, repo RepoRef, openIssues int) Repository {
	id := StableID("repo:" + repo.Full())
	api := b.repoAPI(repo)
	web := b.repoWeb(repo)
	created := accountsCreated
	return Repository{
		ID:               id,
		NodeID:           NodeID("R", id),
		Name:             repo.Name,
		FullName:         repo.Full(),
		Owner:            NewUser(b, repo.Owner),
		HTMLURL:          web,
		URL:              api,
		ArchiveURL:       api + "/{archive_format}{/ref}",
		AssigneesURL:     api + "/assignees{/user}",
		BlobsURL:         api + "/git/blobs{/sha}",
		BranchesURL:      api + "/branches{/branch}",
		CollaboratorsURL: api + "/collaborators{/collaborator}",
		CommentsURL:      api + "/comments{/number}",
		CommitsURL:       api + "/commits{/sha}",
		CompareURL:       api + "/compare/{base}...{head}",
		ContentsURL:      api + "/contents/{+path}",
		ContributorsURL:  api + "/contributors",
		DeploymentsURL:   api + "/deployments",
		DownloadsURL:     api + "/downloads",
		EventsURL:        api + "/events",
		ForksURL:         api + "/forks",
		GitCommitsURL:    api + "/git/commits{/sha}",
		GitRefsURL:       api + "/git/refs{/sha}",
		GitTagsURL:       api + "/git/tags{/sha}",
		GitURL:           "git://" + hostOf(b.Web) + "/" + repo.Full() + ".git",
		IssueCommentURL:  api + "/issues/comments{/number}",
		IssueEventsURL:   api + "/issues/events{/number}",
		IssuesURL:        api + "/issues{/number}",
		KeysURL:          api + "/keys{/key_id}",
		LabelsURL:        api + "/labels{/name}",
		LanguagesURL:     api + "/languages",
		MergesURL:        api + "/merges",
		MilestonesURL:    api + "/milestones{/number}",
		NotificationsURL: api + "/notifications{?since,all,participating}",
		PullsURL:         api + "/pulls{/number}",
		ReleasesURL:      api + "/releases{/id}",
		SSHURL:           "git@" + hostOf(b.Web) + ":" + repo.Full() + ".git",
		StargazersURL:    api + "/stargazers",
		StatusesURL:      api + "/statuses/{sha}",
		SubscribersURL:   api + "/subscribers",
		SubscriptionURL:  api + "/subscription",
		TagsURL:          api + "/tags",
		TeamsURL:         api + "/teams",
		TreesURL:         api + "/git/trees{/sha}",
		CloneURL:         web + ".git",
		HooksURL:         api + "/hooks",
		SvnURL:           web,
		DefaultBranch:    repo.DefaultBranch,
		OpenIssuesCount:  openIssues,
		HasIssues:        true,
		HasProjects:      true,
		HasWiki:          true,
		HasDownloads:     true,
		Visibility:       "public",
		PushedAt:         &created,
		CreatedAt:        &created,
		UpdatedAt:        &created,
		OpenIssues:       openIssues,
	}
}

// hostOf is the host of a base URL such as http://127.0.0.1:8080.
func hostOf(base string) string {
	_, host, _ := strings.Cut(base, "://")
	return host
}
