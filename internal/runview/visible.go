package runview

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Visible shows the characters of s that a terminal would act on instead
// of showing: C0 controls but newline and tab, DEL, C1 controls, the bidi
// embeddings, overrides, isolates and marks, and the line and paragraph
// separators, each as its \uXXXX escape, and a byte that is not UTF-8 as
// \xNN. Text from a run (a file name in a preview, a label, a reason) comes
// from outside: an ESC could move the cursor over the lines an approver
// reads, a U+202E reorder them. A \u escape keeps a --json answer valid
// and meaning the same.
func Visible(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case hidden(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// hidden reports whether a terminal acts on r rather than showing it.
func hidden(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true // bidi embeddings, overrides and isolates
	case r == 0x200e || r == 0x200f || r == 0x061c:
		return true // bidi marks
	case r == 0x2028 || r == 0x2029:
		return true // line and paragraph separators
	}
	return false
}

// VisibleWriter passes everything written to w through Visible: the
// starter writes every line a person reads through one, so that no
// printer of untrusted text can forget to. A character split across writes
// is held until it is whole; Flush writes what is held.
type VisibleWriter struct {
	w       io.Writer
	pending []byte
}

// NewVisibleWriter wraps w.
func NewVisibleWriter(w io.Writer) *VisibleWriter { return &VisibleWriter{w: w} }

// Write writes p made visible. It reports len(p) once it is written.
func (v *VisibleWriter) Write(p []byte) (int, error) {
	buf := append(v.pending, p...)
	v.pending = nil
	// Hold an incomplete UTF-8 sequence at the end, at most 3 bytes.
	for cut := len(buf) - 1; cut >= 0 && cut >= len(buf)-3; cut-- {
		if !utf8.RuneStart(buf[cut]) {
			continue
		}
		if !utf8.FullRune(buf[cut:]) {
			v.pending = append([]byte(nil), buf[cut:]...)
			buf = buf[:cut]
		}
		break
	}
	if _, err := io.WriteString(v.w, Visible(string(buf))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes a held incomplete sequence, shown as its bytes.
func (v *VisibleWriter) Flush() error {
	if len(v.pending) == 0 {
		return nil
	}
	held := v.pending
	v.pending = nil
	_, err := io.WriteString(v.w, Visible(string(held)))
	return err
}
