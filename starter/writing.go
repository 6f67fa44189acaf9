package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/agentrun/agentrun/api"
)

// writingWidth is how much of what the model is writing one line shows: its
// newest words.
const writingWidth = 160

// writingLine is the "Writing: …" line of the text the run's model is
// writing, on one line and without control characters (the text is the
// model's, so it may hold anything), or "" when there is nothing to show.
func writingLine(text string) string {
	text = strings.Join(strings.FieldsFunc(text, func(r rune) bool { return r < ' ' || r == 0x7f || r == ' ' }), " ")
	if text == "" {
		return ""
	}
	if tail := api.TailUTF8(text, writingWidth); tail != text {
		text = "…" + tail
	}
	return "Writing: " + text
}

// followWriting prints what the model is writing when it changed since
// shown, and returns what is shown now. It never fails the follow: the
// events are what it is for.
func followWriting(w io.Writer, text, shown string) string {
	line := writingLine(text)
	if line == "" || line == shown {
		return line
	}
	fmt.Fprintln(w, line)
	return line
}
