package workflows

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"regexp"
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

func redact(s string) string {
	for _, re := range secretPatterns {
		s = re.ReplaceAllString(s, "[redacted]")
	}
	return s
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// truncatedNote stands in for content too large to show.
type truncatedNote struct {
	Truncated bool   `json:"truncated"`
	Bytes     int    `json:"bytes"`
	SHA256    string `json:"sha256"`
	Head      string `json:"head"`
}

// safeJSON renders v for a step record: credentials redacted, and content
// past safeLimit replaced by its head, size and sha256.
func safeJSON(v any) json.RawMessage {
	raw, err := json.Marshal(v)
	if err != nil {
		raw, _ = json.Marshal(map[string]string{"unrenderable": err.Error()})
	}
	clean := redact(string(raw))
	if len(clean) <= safeLimit && json.Valid([]byte(clean)) {
		return json.RawMessage(clean)
	}
	note, _ := json.Marshal(truncatedNote{Truncated: true, Bytes: len(raw), SHA256: sha256Hex(raw), Head: truncateUTF8(clean, safeLimit/2)})
	return note
}

func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8Start(s[n]) {
		n--
	}
	return s[:n]
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
