package mcptool

import (
	"bufio"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestOnlyAWorkerHoldingBothSetUIDAndSetGIDMaySwitchUser(t *testing.T) {
	status := func(capEff string) *bufio.Scanner {
		return bufio.NewScanner(strings.NewReader("Name:\tworker\nCapInh:\t0000000000000000\nCapEff:\t" + capEff + "\nCapBnd:\t000001ffffffffff\n"))
	}
	assert.True(t, hasCapabilities(status("00000000000000c0"), capSetUID, capSetGID), "CAP_SETUID and CAP_SETGID")
	assert.False(t, hasCapabilities(status("0000000000000080"), capSetUID, capSetGID), "CAP_SETUID alone cannot set the group")
	assert.False(t, hasCapabilities(status("0000000000000000"), capSetUID, capSetGID), "an unprivileged worker")
	assert.False(t, hasCapabilities(status("not-hex"), capSetUID, capSetGID))
	assert.False(t, hasCapabilities(bufio.NewScanner(strings.NewReader("Name:\tworker\n")), capSetUID, capSetGID), "no CapEff line")
}
