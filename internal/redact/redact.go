// Package redact is what a step record may show of a step's input or output
// (AgentStep's SafeInput and SafeOutput): the run query serves it to anyone
// who may read the run, so credentials are redacted, large content is cut
// and a changed file's patch is left out. Only the workflow writes step
// records; every reader takes them as they are, so none of this is contract.
package redact

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"regexp"

	"github.com/agentrun/agentrun/api"
)

// safeLimit bounds what a step shows of its input or output.
const safeLimit = 4096

// secretPatterns match credentials that must never reach a step record.
var secretPatterns = []*regexp.Regexp{
	regexp.MustCompile(`gh[pousr]_[A-Za-z0-9]{20,}`),
	regexp.MustCompile(`github_pat_[A-Za-z0-9_]{20,}`),
	regexp.MustCompile(`AKIA[0-9A-Z]{16}`),
	regexp.MustCompile(`(?i)bearer\s+[A-Za-z0-9._~+/-]{16,}=*`),
	regexp.MustCompile(`sk-[A-Za-z0-9_-]{20,}`),
	regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)`),
}

func secrets(s string) string {
	for _, re := range secretPatterns {
		s = re.ReplaceAllString(s, "[redacted]")
	}
	return s
}

// truncatedNote stands in for content too large to show.
type truncatedNote struct {
	Truncated bool   `json:"truncated"`
	Bytes     int    `json:"bytes"`
	SHA256    string `json:"sha256"`
	Head      string `json:"head"`
}

// JSON renders v for a step record: credentials redacted, and content
// past safeLimit replaced by its head, size and sha256.
func JSON(v any) json.RawMessage {
	raw, err := json.Marshal(v)
	if err != nil {
		raw, _ = json.Marshal(map[string]string{"unrenderable": err.Error()})
	}
	clean := secrets(string(raw))
	if len(clean) <= safeLimit && json.Valid([]byte(clean)) {
		return json.RawMessage(clean)
	}
	sum := sha256.Sum256(raw)
	note, _ := json.Marshal(truncatedNote{Truncated: true, Bytes: len(raw), SHA256: hex.EncodeToString(sum[:]), Head: api.TruncateUTF8(clean, safeLimit/2)})
	return note
}

// maxKeptTarget bounds the target Action keeps beside a cut record; a
// longer one is left out, which readers take as "any target".
const maxKeptTarget = 1024

// Action renders an action step's input (fields, such as its preview) with
// target, what it touches. Past safeLimit the fields are cut to their head
// as JSON cuts them, but the target stays beside the note: a follow-up and
// an approver's caution read what an action in doubt may have changed from
// its record, however long its comment was.
func Action(target string, fields map[string]any) json.RawMessage {
	fields["target"] = target
	raw := JSON(fields)
	var note truncatedNote
	if json.Unmarshal(raw, &note) != nil || !note.Truncated {
		return raw
	}
	kept := secrets(target)
	if len(kept) > maxKeptTarget {
		kept = ""
	}
	out, _ := json.Marshal(struct {
		Target string `json:"target,omitempty"`
		truncatedNote
	}{kept, note})
	return out
}

// FileSummary is what a step record shows of a changed file: its patch
// stays out (the model still sees it), only its size is told.
type FileSummary struct {
	Filename   string `json:"filename"`
	Status     string `json:"status"`
	Additions  int    `json:"additions"`
	Deletions  int    `json:"deletions"`
	PatchBytes int    `json:"patchBytes"`
}

// FileSummaries summarises the files a list_pull_request_files step read.
func FileSummaries(files []api.PullRequestFile) []FileSummary {
	out := make([]FileSummary, len(files))
	for i, f := range files {
		n := f.PatchBytes
		if n == 0 {
			n = len(f.Patch)
		}
		out[i] = FileSummary{Filename: f.Filename, Status: f.Status, Additions: f.Additions, Deletions: f.Deletions, PatchBytes: n}
	}
	return out
}
