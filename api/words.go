package api

import "strings"

// ToolWords are how people read an action's calls: the labels of a run,
// its step titles, its outcome, `starter status` and the approval page all
// say what the tool does in these words, never in a comment's. A tool gives
// the parts (Noun, Verb, Past, and Doing when the verb's -ing form is not
// regular) and every sentence is made from them, so that the words of one
// tool agree with one another ("create a ticket", "Creating the ticket",
// "created ticket T-1001", "Checking whether the ticket was already
// created"). A spec without words gets DefaultWords of its name.
type ToolWords struct {
	// Noun is what one call makes or changes: "comment", "ticket".
	Noun string `json:"noun,omitempty"`
	// Verb is the verb's base form: "post", "create".
	Verb string `json:"verb,omitempty"`
	// Past is the past participle: "posted", "created".
	Past string `json:"past,omitempty"`
	// Doing is the -ing form, when it is not Verb+"ing" (or Verb less its
	// final e, +"ing"): "setting".
	Doing string `json:"doing,omitempty"`
	// Running is the run's label while a call of the tool runs, when
	// Making's "Reading the pull request" does not read well: "Searching
	// merchants".
	Running string `json:"running,omitempty"`
}

// DefaultWords are the words of a tool that gives none, from its name: a
// name that starts with a common verb reads as that verb and the rest
// ("create_ticket": "create a ticket"); any other reads as running it
// ("lookup": "run a lookup call").
func DefaultWords(tool string) ToolWords {
	first, rest, _ := strings.Cut(tool, "_")
	if forms, ok := knownVerbs[first]; ok && rest != "" {
		return ToolWords{Noun: strings.ReplaceAll(rest, "_", " "), Verb: first, Past: forms[0], Doing: forms[1]}
	}
	return ToolWords{Noun: tool + " call", Verb: "run", Past: "run", Doing: "running"}
}

// knownVerbs are the verbs DefaultWords recognises, with their participle
// and, where it is not regular, their -ing form.
var knownVerbs = map[string][2]string{
	"add": {"added"}, "close": {"closed"}, "create": {"created"}, "delete": {"deleted"},
	"open": {"opened"}, "post": {"posted"}, "publish": {"published"}, "put": {"put", "putting"},
	"remove": {"removed"}, "save": {"saved"}, "send": {"sent"}, "set": {"set", "setting"},
	"submit": {"submitted", "submitting"}, "update": {"updated"}, "upload": {"uploaded"}, "write": {"written"},
}

// Or is w with each missing part taken from DefaultWords(tool); a spec that
// names only its noun keeps its noun.
func (w ToolWords) Or(tool string) ToolWords {
	d := DefaultWords(tool)
	if w.Noun == "" {
		w.Noun = d.Noun
	}
	if w.Verb == "" {
		w.Verb, w.Past, w.Doing = d.Verb, d.Past, d.Doing
	}
	if w.Past == "" {
		w.Past = w.Verb + "ed"
	}
	return w
}

// Do is the call to make, after "to": "post a comment".
func (w ToolWords) Do() string { return w.Verb + " " + WithArticle(w.Noun) }

// Making is the call running, as a label: "Posting the comment".
func (w ToolWords) Making() string { return capital(w.Gerund()) + " the " + w.Noun }

// Label is the run's label while a call runs: Running, or Making.
func (w ToolWords) Label() string {
	if w.Running != "" {
		return w.Running
	}
	return w.Making()
}

// Made is a call done, before what it made: "posted comment" (then "123").
func (w ToolWords) Made() string { return w.Past + " " + w.Noun }

// Found says an action's effect was found rather than made: "found
// message", to be followed by its ID and AlreadyDone.
func (w ToolWords) Found() string { return "found " + w.Noun }

// AlreadyDone says why a found effect was not made again: "already sent
// before the answer was lost".
func (w ToolWords) AlreadyDone() string { return "already " + w.Past + " before the answer was lost" }

// Checking is its reconcile, as a label: "Checking whether the comment was
// already posted".
func (w ToolWords) Checking() string {
	return "Checking whether the " + w.Noun + " was already " + w.Past
}

// Gerund is the verb's -ing form: "posting".
func (w ToolWords) Gerund() string {
	switch {
	case w.Doing != "":
		return w.Doing
	case strings.HasSuffix(w.Verb, "e") && !strings.HasSuffix(w.Verb, "ee"):
		return strings.TrimSuffix(w.Verb, "e") + "ing"
	}
	return w.Verb + "ing"
}

// WithArticle is a noun with its indefinite article: "a comment", "an issue".
func WithArticle(noun string) string {
	if noun != "" && strings.ContainsRune("aeiouAEIOU", rune(noun[0])) {
		return "an " + noun
	}
	return "a " + noun
}

func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// WordsOf are the words a step or action recorded, or its tool name's
// defaults when it recorded none.
func WordsOf(w *ToolWords, tool string) ToolWords {
	if w == nil {
		return DefaultWords(tool)
	}
	return w.Or(tool)
}

// The labels of a run while an action is under way, in its tool's words;
// the comment tool's read as the Label constants.

// WaitingLabel: "Waiting for approval to post a comment".
func (w ToolWords) WaitingLabel() string { return "Waiting for approval to " + w.Do() }

// BackoffLabel: "Waiting before trying the comment again".
func (w ToolWords) BackoffLabel() string { return "Waiting before trying the " + w.Noun + " again" }

// CannotTellLabel: "Cannot tell whether the comment was posted; waiting for
// an operator".
func (w ToolWords) CannotTellLabel() string {
	return "Cannot tell whether the " + w.Noun + " was " + w.Past + "; waiting for an operator"
}

// Held is an attempt held until the earlier one can no longer land, at the
// clock time at: "sending at 12:04:31 UTC unless the comment appears first".
func (w ToolWords) Held(at string) string {
	return "sending at " + at + " unless the " + w.Noun + " appears first"
}

// RejectedLabel: "The comment was rejected".
func (w ToolWords) RejectedLabel() string { return "The " + w.Noun + " was rejected" }

// ExpiredLabel: "The approval expired; nothing was posted".
func (w ToolWords) ExpiredLabel() string { return "The approval expired; nothing was " + w.Past }
