package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

func TestApproveWithAnEditFileSendsItsObjectAndRefusesAnythingElse(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
		return p
	}
	cmd := &decideCommand{env: newEnv(func(string) string { return "" }, nil, nil), approve: true}
	sig, _, err := cmd.parse([]string{"r1", "--action", "a1", "--as", "alice", "--edit-file", write("ok.json", "{\n  \"body\": \"Shorter.\"\n}\n")})
	require.NoError(t, err)
	require.Equal(t, `{"body":"Shorter."}`, string(sig.Args))

	for name, content := range map[string]string{
		"not an object": `["body"]`,
		"not JSON":      `body: shorter`,
		"oversized":     `{"body":"` + strings.Repeat("x", api.MaxEditArgsBytes) + `"}`,
	} {
		cmd := &decideCommand{env: newEnv(func(string) string { return "" }, nil, nil), approve: true}
		_, _, err := cmd.parse([]string{"r1", "--action", "a1", "--as", "alice", "--edit-file", write(strings.ReplaceAll(name, " ", "-"), content)})
		require.ErrorContains(t, err, "--edit-file", name)
	}
	cmd = &decideCommand{env: newEnv(func(string) string { return "" }, nil, nil), approve: true}
	_, _, err = cmd.parse([]string{"r1", "--all", "--as", "alice", "--edit-file", write("all.json", `{}`)})
	require.ErrorContains(t, err, "leave out --all")
}

func TestRespondNeedsBoundedFeedback(t *testing.T) {
	cmd := &decideCommand{env: newEnv(func(string) string { return "" }, nil, nil), respond: true}
	sig, _, err := cmd.parse([]string{"r1", "--action", "a1", "--as", "alice", "--feedback", "shorter"})
	require.NoError(t, err)
	require.Equal(t, api.DecisionRespond, sig.Decision)
	require.Equal(t, "shorter", sig.Reason)

	cmd = &decideCommand{env: newEnv(func(string) string { return "" }, nil, nil), respond: true}
	_, _, err = cmd.parse([]string{"r1", "--action", "a1", "--as", "alice"})
	require.ErrorContains(t, err, "--feedback is required")
	cmd = &decideCommand{env: newEnv(func(string) string { return "" }, nil, nil), respond: true}
	_, _, err = cmd.parse([]string{"r1", "--action", "a1", "--as", "alice", "--feedback", strings.Repeat("x", api.MaxFeedbackBytes+1)})
	require.ErrorContains(t, err, "at most 2000")
}
