package ghsandbox

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseLinesNumbersBothSidesAcrossHunks(t *testing.T) {
	patch := "@@ -3,3 +3,4 @@ func a() {\n keep\n-old\n+new\n+added\n keep2\n@@ -20,1 +21,1 @@\n-gone\n+here\n\\ No newline at end of file"

	d := ParseLines(patch)

	for _, line := range []int{3, 4, 5, 6, 21} {
		require.True(t, d.Has("RIGHT", line), "right %d", line)
	}
	for _, line := range []int{3, 4, 5, 20} {
		require.True(t, d.Has("LEFT", line), "left %d", line)
	}
	for _, line := range []int{0, 2, 7, 20, 22} {
		require.False(t, d.Has("RIGHT", line), "right %d", line)
	}
	require.False(t, d.Has("LEFT", 6), "an added line is not on the left")
	require.False(t, d.Has("SIDEWAYS", 3))
	require.True(t, d.Has("", 21), "no side means RIGHT")
	// Five lines, the second hunk's header, two lines, the no-newline marker.
	require.Equal(t, 9, d.Positions)
}

func TestParseLinesIgnoresWhatIsNotAHunk(t *testing.T) {
	for name, patch := range map[string]string{
		"empty":            "",
		"no header":        "+a\n-b\n c",
		"malformed header": "@@ nonsense @@\n+a",
		"negative start":   "@@ -x,1 +-3,1 @@\n+a",
	} {
		d := ParseLines(patch)
		require.Zero(t, d.Positions, name)
		require.False(t, d.Has("RIGHT", 1), name)
	}
}

func TestCountLines(t *testing.T) {
	add, del := CountLines("@@ -1,2 +1,3 @@\n a\n-b\n+c\n+d")
	require.Equal(t, 2, add)
	require.Equal(t, 1, del)
}
