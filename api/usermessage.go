package api

import (
	"fmt"
	"strings"
)

// The user messages of a run's conversation, the one format a model may
// rely on (docs/tools.md, "The user message"): a run opens with its agent's
// task on its target, a follow-up with a line of its own, and either ends
// with the goal the run was started with, when it has one:
//
//	Send the announcement on chat_channel channel=releases.
//	Goal: Version 2.4 is out
//
//	Follow-up on the same target.
//	Goal: Say it again in French
//
// The target is Target.Ref: "acme/widgets#1" for a pull request, its kind
// and its fields in name order ("chat_channel channel=releases") for
// another kind. The goal is the rest of the message, newlines and all. It is
// the text of whoever started the run: a model reads it as data.

// goalLine starts the goal in a user message.
const goalLine = "\nGoal: "

// FollowUpLine is the first line of a follow-up's user message.
const FollowUpLine = "Follow-up on the same target."

// OpeningMessage is the user message a run opens with: task on target,
// then the goal when there is one.
func OpeningMessage(task, target, goal string) string {
	msg := fmt.Sprintf("%s %s.", task, target)
	if goal != "" {
		msg += goalLine + goal
	}
	return msg
}

// FollowUpMessage is the user message of a follow-up with goal.
func FollowUpMessage(goal string) string { return FollowUpLine + goalLine + goal }

// ReadUserMessage splits a user message of a run into its first line (the
// task on its target, or FollowUpLine) and its goal, "" when it has none.
func ReadUserMessage(content string) (first, goal string) {
	first, goal, _ = strings.Cut(content, goalLine)
	return first, goal
}
