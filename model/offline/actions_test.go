package offline

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/testkit/reviewtools"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// actionSchemas are the registry's action tools' argument schemas: what the
// workflow checks every call against before anything runs.
var actionSchemas = map[string]string{
	api.ToolAddLabels: `{"type":"object","properties":{"labels":{"type":"array","minItems":1,"maxItems":10,"uniqueItems":true,
		"items":{"type":"string","minLength":1,"maxLength":50}}},"required":["labels"],"additionalProperties":false}`,
	api.ToolCreateIssue: `{"type":"object","properties":{"title":{"type":"string","minLength":1,"maxLength":256},
		"body":{"type":"string"},"labels":{"type":"array","items":{"type":"string"}}},
		"required":["title","body"],"additionalProperties":false}`,
	api.ToolCreatePullRequestReview: `{"type":"object","properties":{"body":{"type":"string"},
		"event":{"type":"string","enum":["COMMENT","REQUEST_CHANGES"]},
		"comments":{"type":"array","maxItems":50,"items":{"type":"object","properties":{
			"path":{"type":"string","minLength":1},"line":{"type":"integer","minimum":1},
			"side":{"type":"string","enum":["LEFT","RIGHT"]},"body":{"type":"string","minLength":1}},
			"required":["path","line","side","body"],"additionalProperties":false}}},
		"required":["body","event"],"additionalProperties":false}`,
}

// offeredTools is what an agent offering these tools gives a model call.
func offeredTools(t testing.TB, names ...string) []api.ToolSpec {
	t.Helper()
	var specs []api.ToolSpec
	for _, name := range names {
		if spec, ok := reviewtools.ToolByName(name); ok {
			specs = append(specs, spec)
			continue
		}
		schema, ok := actionSchemas[name]
		require.True(t, ok, "no schema for %s", name)
		var compact bytes.Buffer
		require.NoError(t, json.Compact(&compact, []byte(schema)))
		specs = append(specs, api.ToolSpec{Name: name, Description: name, Parameters: compact.Bytes(), SideEffect: true})
	}
	return specs
}

// Tools of the three behaviours.
var (
	reviewTools = []string{api.ToolGetPullRequest, api.ToolListPullRequestFiles, api.ToolCreatePullRequestReview}
	triageTools = []string{api.ToolGetPullRequest, api.ToolListPullRequestFiles, api.ToolAddLabels, api.ToolCreateIssue}
)

// requireValidCalls checks every call of a decision as the workflow does:
// an offered tool, arguments its schema accepts, and an ID no earlier call
// of the run used.
func requireValidCalls(t testing.TB, tools []api.ToolSpec, conversation []api.Message, d api.ModelDecision) {
	t.Helper()
	used := map[string]bool{}
	for _, m := range conversation {
		for _, c := range m.ToolCalls {
			used[c.ID] = true
		}
	}
	for _, call := range d.ToolCalls {
		require.False(t, used[call.ID], "call ID %s used twice in the run", call.ID)
		used[call.ID] = true
		var spec *api.ToolSpec
		for i := range tools {
			if tools[i].Name == call.Name {
				spec = &tools[i]
			}
		}
		require.NotNil(t, spec, "call of %s, which is not offered", call.Name)
		var schema jsonschema.Schema
		require.NoError(t, json.Unmarshal(spec.Parameters, &schema))
		resolved, err := schema.Resolve(nil)
		require.NoError(t, err)
		var args map[string]any
		require.NoError(t, json.Unmarshal(call.Arguments, &args), "%s arguments", call.ID)
		require.NoError(t, resolved.Validate(args), "%s arguments %s", call.ID, call.Arguments)
	}
}

// requireGolden compares v, as indented JSON, with testdata/golden/name.json.
func requireGolden(t testing.TB, name string, v any) {
	t.Helper()
	var got bytes.Buffer
	enc := json.NewEncoder(&got)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(v))
	file := filepath.Join("testdata", "golden", name+".json")
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
		require.NoError(t, os.WriteFile(file, got.Bytes(), 0o644))
	}
	want, err := os.ReadFile(file)
	require.NoError(t, err, "run go test ./model/offline -update to write it")
	require.Equal(t, string(want), got.String())
}

// The helpers the external sandbox test shares.
var (
	OfferedTools      = offeredTools
	TriageTools       = triageTools
	RequireValidCalls = requireValidCalls
	RequireGolden     = requireGolden
)
