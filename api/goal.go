package api

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxGoalBytes bounds a run's goal: it goes into the model's prompt and the
// run's history, whichever channel started the run.
const MaxGoalBytes = 2000

// CheckGoal is the rule for a run's goal, on every channel and again in the
// run: valid UTF-8 of at most MaxGoalBytes, without control characters.
func CheckGoal(goal string) error {
	if len(goal) > MaxGoalBytes || !utf8.ValidString(goal) || strings.IndexFunc(goal, unicode.IsControl) >= 0 {
		return fmt.Errorf("goal must be valid UTF-8 of at most %d bytes, without control characters", MaxGoalBytes)
	}
	return nil
}
