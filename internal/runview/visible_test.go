package runview

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestVisibleShowsWhatATerminalWouldActOnAndKeepsTheRest(t *testing.T) {
	for in, want := range map[string]string{
		"plain text, é, 日本\n\tnext":        "plain text, é, 日本\n\tnext",
		"erase\x1b[2K line\r":              `erase\u001b[2K line\u000d`,
		"bell\x07 del\x7f nul\x00":         `bell\u0007 del\u007f nul\u0000`,
		"c1 \u0085 csi \u009b":             `c1 \u0085 csi \u009b`,
		"rlo \u202e lri \u2066 lrm \u200e": `rlo \u202e lri \u2066 lrm \u200e`,
		"ls \u2028 ps \u2029 alm \u061c":   `ls \u2028 ps \u2029 alm \u061c`,
		"bad byte \xff and lone \x9b":      `bad byte \xff and lone \x9b`,
	} {
		require.Equal(t, want, Visible(in), "%q", in)
	}
}

func TestVisibleWriterHoldsACharacterSplitAcrossWritesAndKeepsJSONMeaningTheSame(t *testing.T) {
	var out bytes.Buffer
	w := NewVisibleWriter(&out)
	encoded, err := json.Marshal(map[string]string{"preview": "a\u202eb\u0085c é"})
	require.NoError(t, err)
	for i := range encoded { // one byte at a time: every multi-byte rune is split
		n, err := w.Write(encoded[i : i+1])
		require.NoError(t, err)
		require.Equal(t, 1, n)
	}
	require.NoError(t, w.Flush())

	require.Equal(t, `{"preview":"a\u202eb\u0085c é"}`, out.String())
	var back map[string]string
	require.NoError(t, json.Unmarshal(out.Bytes(), &back))
	require.Equal(t, "a\u202eb\u0085c é", back["preview"])

	out.Reset()
	_, err = w.Write([]byte("cut \xe6\x97"))
	require.NoError(t, err)
	require.NoError(t, w.Flush())
	require.Equal(t, `cut \xe6\x97`, out.String(), "a sequence never completed is shown as its bytes")
}
