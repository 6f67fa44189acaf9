package activities

import (
	gogithub "github.com/google/go-github/v62/github"

	ghapi "github.com/agentrun/agentrun/github"
)

// NewGitHubClient is github.NewClient, kept for the worker's wiring and the
// tests that build Activities over a sandbox.
func NewGitHubClient(baseURL, token string) (*gogithub.Client, error) {
	return ghapi.NewClient(baseURL, token)
}

// classifyGitHubError is github.ClassifyError: the tools' errors are
// classified as every GitHub caller's are.
func classifyGitHubError(op string, err error) error { return ghapi.ClassifyError(op, err) }
