package api

// ModelProgress is the heartbeat detail of a ModelNext activity whose model
// streams: the text it has written so far, for people watching the run. It
// lives on the pending activity only (Describe's PendingActivities), never
// in the run's history, so it decides nothing; the decision is the
// activity's result.
type ModelProgress struct {
	// Writing is the tail of the text so far, at most MaxWritingBytes.
	Writing string `json:"writing,omitempty"`
}

// MaxWritingBytes bounds ModelProgress.Writing: a heartbeat is sent every
// half second, and readers show a line, not the whole answer.
const MaxWritingBytes = 2 << 10

// TailUTF8 is the last n bytes of s or fewer, cut on a rune boundary.
func TailUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	start := len(s) - n
	for start < len(s) && s[start]&0xC0 == 0x80 {
		start++
	}
	return s[start:]
}
