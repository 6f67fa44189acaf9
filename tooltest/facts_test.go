package tooltest

import (
	"strings"
	"testing"
	"time"
)

// The kit holds every call of a step to the facts tools.Call promises: the
// same KeyRecordedAt throughout, and attempts that count up. A run of the
// kit shows only facts that hold (every action's kit test checks them);
// these are the ones that do not, as a broken workflow would hand them.
func TestTheKitCatchesCallFactsThatDoNotHold(t *testing.T) {
	keyAt := time.Date(2026, 12, 2, 13, 0, 0, 0, time.UTC)
	exec := func(attempt int, at time.Time) facts { return facts{execute: true, attempt: attempt, keyAt: at} }
	look := func(attempt int, at time.Time) facts { return facts{attempt: attempt, keyAt: at} }

	good := []facts{exec(1, keyAt), look(1, keyAt), look(1, keyAt), exec(2, keyAt), look(2, keyAt), look(3, keyAt), exec(3, keyAt)}
	if p := checkFacts(good); len(p) != 0 {
		t.Fatalf("a step whose facts hold: %q", p)
	}
	for name, c := range map[string]struct {
		calls []facts
		want  string
	}{
		"a retry with a key time of its own": {[]facts{exec(1, keyAt), look(1, keyAt), exec(2, keyAt.Add(time.Second))}, "must be the same for every attempt"},
		"a look with a key time of its own":  {[]facts{exec(1, keyAt), look(1, keyAt.Add(-time.Minute))}, "must be the same for every attempt"},
		"no key time":                        {[]facts{exec(1, time.Time{})}, "has no KeyRecordedAt"},
		"a retry told the same attempt":      {[]facts{exec(1, keyAt), look(1, keyAt), exec(1, keyAt)}, "each attempt must count up"},
		"no attempt number":                  {[]facts{exec(0, keyAt)}, "attempts count from 1"},
		"a look after an earlier attempt":    {[]facts{exec(1, keyAt), look(1, keyAt), exec(2, keyAt), look(1, keyAt)}, "the count went back"},
	} {
		p := checkFacts(c.calls)
		if len(p) != 1 || !strings.Contains(p[0], c.want) {
			t.Errorf("%s: want one problem saying %q, got %q", name, c.want, p)
		}
	}
}
