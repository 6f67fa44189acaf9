package api

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// A run acts on one target: a kind and its fields. Its agent declares the
// kind it takes (tools.Agent.TargetKind), every tool call is pinned to it
// (tools.Registry.Check), and its kind says who may approve (ApproverSource).
//
// Wire names. A pull request travels as every run carried it before kinds
// had names, so that recorded histories and approvals' argsHash stay the
// same: RunInput.repo and RunInput.pullNumber, and in a tool's input
// {"owner","repo","pullNumber"}. Any other kind travels as
// {"kind": KIND, "fields": {NAME: VALUE, ...}}, in RunInput.target and in
// every tool input. On the command line and in POST /v1/runs a pull request
// is also {"kind":"github_pull_request","fields":{"repo":"acme/widgets","pull":"1"}}.

// TargetPullRequest is the kind of a GitHub pull request, the kind of every
// run before kinds had names.
const TargetPullRequest = "github_pull_request"

// The pull request kind's field names.
const (
	TargetFieldRepo = "repo" // owner/name
	TargetFieldPull = "pull" // the pull request's number
)

// Bounds of a target's fields: they name the run, reach the model's prompt
// and every tool's input.
const (
	MaxTargetFields     = 8
	MaxTargetValueBytes = 200
)

// ErrNeedsApprovers is the refusal of a start whose target's kind has no
// source of who may approve, and that names no approvers.
var ErrNeedsApprovers = errors.New("the run needs named approvers")

// Target is what a run acts on. Kind is empty for a pull request (see the
// wire names above); its fields are then Owner, Repo and PullNumber, which
// the GitHub tools read. Any other kind has its fields in Fields.
type Target struct {
	Owner      string `json:"owner,omitempty"`
	Repo       string `json:"repo,omitempty"`
	PullNumber int    `json:"pullNumber,omitempty"`
	// Kind and Fields are a target of another kind than a pull request.
	Kind   string            `json:"kind,omitempty"`
	Fields map[string]string `json:"fields,omitempty"`
	// InstallationID is the GitHub App installation that reaches a pull
	// request's repository (RunInput.InstallationID), for a worker in app
	// mode; zero has the worker look it up. It names no resource and pins
	// nothing: Ref, Label and the tools' pins leave it out.
	InstallationID int64 `json:"installationId,omitempty"`
	// Head and ReviewedHead are a pull request review's range
	// (RunInput.Head, RunInput.ReviewedHead): the listing reads only the
	// change since ReviewedHead when both are set. ReviewedDraft is
	// RunInput's: the run whose review of ReviewedHead was superseded
	// before it was posted, which the listing names.
	Head          string `json:"head,omitempty"`
	ReviewedHead  string `json:"reviewedHead,omitempty"`
	ReviewedDraft string `json:"reviewedDraft,omitempty"`
}

// KindName is the target's kind by name, a pull request's too.
func (t Target) KindName() string {
	if t.Kind == "" {
		return TargetPullRequest
	}
	return t.Kind
}

// IsPullRequest reports whether the target is a GitHub pull request.
func (t Target) IsPullRequest() bool { return t.KindName() == TargetPullRequest }

// Ref names the target for people: "acme/widgets#1" for a pull request,
// "support_queue queue=support" for another kind (its fields sorted).
func (t Target) Ref() string {
	if t.IsPullRequest() {
		return fmt.Sprintf("%s/%s#%d", t.Owner, t.Repo, t.PullNumber)
	}
	parts := []string{t.Kind}
	for _, k := range sortedFieldNames(t.Fields) {
		parts = append(parts, k+"="+t.Fields[k])
	}
	return strings.Join(parts, " ")
}

// Label names the target for people when its kind declares no label of its
// own (tools.Agent.TargetLabel): "acme/widgets#1" for a pull request, and
// for another kind its words and fields, "support queue (queue support)".
// It never prints a pull request's format with its parts empty: a pull
// request that names none is "".
func (t Target) Label() string {
	if t.IsPullRequest() {
		if t.Owner == "" || t.Repo == "" || t.PullNumber <= 0 {
			return ""
		}
		return fmt.Sprintf("%s/%s#%d", t.Owner, t.Repo, t.PullNumber)
	}
	parts := make([]string, 0, len(t.Fields))
	for _, k := range sortedFieldNames(t.Fields) {
		parts = append(parts, strings.ReplaceAll(k, "_", " ")+" "+t.Fields[k])
	}
	kind := strings.ReplaceAll(t.Kind, "_", " ")
	if len(parts) == 0 {
		return kind
	}
	return kind + " (" + strings.Join(parts, ", ") + ")"
}

// LabelFrom is the target's label as a kind declares it: template with each
// "{field}" replaced by that field's value ("#{channel}" makes "#releases").
// An empty template, or one naming a field the target lacks, gives Label.
func (t Target) LabelFrom(template string) string {
	if template == "" {
		return t.Label()
	}
	var b strings.Builder
	rest := template
	for {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			b.WriteString(rest)
			return b.String()
		}
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			return t.Label()
		}
		v, ok := t.Fields[rest[open+1:open+end]]
		if !ok || v == "" {
			return t.Label()
		}
		b.WriteString(rest[:open])
		b.WriteString(v)
		rest = rest[open+end+1:]
	}
}

// CheckTargetLabel is the rule for a declared label (tools.Agent.TargetLabel):
// text with fields named in braces, each a valid field name, no brace
// unpaired.
func CheckTargetLabel(template string) error {
	rest := template
	for {
		open, shut := strings.IndexByte(rest, '{'), strings.IndexByte(rest, '}')
		switch {
		case open < 0 && shut < 0:
			return nil
		case shut < 0:
			return fmt.Errorf("target label %.60q: a '{' without its '}'", template)
		case open < 0 || shut < open:
			return fmt.Errorf("target label %.60q: a '}' without its '{'", template)
		}
		name := rest[open+1 : shut]
		if !ValidTargetKind(name) {
			return fmt.Errorf("target label %.60q: {%.40s} is not a field name (lower case letters, digits and '_')", template, name)
		}
		rest = rest[shut+1:]
	}
}

// NewTarget checks a kind and its fields, as a start names them, and
// returns the target. A pull request needs exactly repo and pull.
func NewTarget(kind string, fields map[string]string) (Target, error) {
	if kind == "" || kind == TargetPullRequest {
		for _, k := range sortedFieldNames(fields) {
			if k != TargetFieldRepo && k != TargetFieldPull {
				return Target{}, fmt.Errorf("target field %.40q: a %s takes only %s and %s", k, TargetPullRequest, TargetFieldRepo, TargetFieldPull)
			}
		}
		pr, err := strconv.Atoi(fields[TargetFieldPull])
		if err != nil {
			return Target{}, fmt.Errorf("target field %s %.40q: want a pull request number above 0", TargetFieldPull, fields[TargetFieldPull])
		}
		return ParseTarget(fields[TargetFieldRepo], pr)
	}
	if !ValidTargetKind(kind) {
		return Target{}, fmt.Errorf("target kind %.40q: want lower case letters, digits and '_', starting with a letter, e.g. %s", kind, TargetPullRequest)
	}
	if len(fields) == 0 {
		return Target{}, fmt.Errorf("a %s target needs at least one field (NAME=VALUE)", kind)
	}
	if len(fields) > MaxTargetFields {
		return Target{}, fmt.Errorf("a target has at most %d fields", MaxTargetFields)
	}
	for _, k := range sortedFieldNames(fields) {
		if !ValidTargetKind(k) {
			return Target{}, fmt.Errorf("target field name %.40q: want lower case letters, digits and '_', starting with a letter", k)
		}
		if v := fields[k]; v == "" || len(v) > MaxTargetValueBytes || !printable(v) {
			return Target{}, fmt.Errorf("target field %s: want 1 to %d bytes of printable text", k, MaxTargetValueBytes)
		}
	}
	return Target{Kind: kind, Fields: maps.Clone(fields)}, nil
}

// FieldNames are the target's field names in sorted order: what a run pins
// its tools to, the same on every replay.
func (t Target) FieldNames() []string { return sortedFieldNames(t.Fields) }

// sortedFieldNames is the one place a target's fields are ranged over: in
// sorted order, so that whatever the workflow derives from them (a message, a
// pin, a reference) is the same on every replay.
func sortedFieldNames(fields map[string]string) []string {
	return slices.Sorted(maps.Keys(fields))
}

// ValidTargetKind is the rule for a kind's name and its fields' names: they
// go into run IDs, messages and JSON keys.
func ValidTargetKind(name string) bool { return lowerCaseName(name, 63, '_') }

func printable(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == '\uFFFD' {
			return false
		}
	}
	return true
}

// ApproverSource names where the run asks who may approve when it names no
// approvers: "GitHub write permission" for a pull request, "" for a kind
// with no such source, whose runs must name their approvers.
func (t Target) ApproverSource() string {
	if t.IsPullRequest() {
		return "write permission on " + t.Owner + "/" + t.Repo
	}
	return ""
}

// CheckApprovers refuses a run that names no approvers on a target whose
// kind has no source of who may approve: every channel (starter, runclient,
// POST /v1/runs, the workflow) applies this same rule.
func CheckApprovers(t Target, approvers []string) error {
	if len(approvers) == 0 && t.ApproverSource() == "" {
		return fmt.Errorf("%w: a %s target has no source of who may approve (only a GitHub pull request's write permission is one); name them with starter --approver LOGIN, or \"approvers\" in POST /v1/runs", ErrNeedsApprovers, t.KindName())
	}
	return nil
}

// builtinAgentKinds are the kinds the built-in agents take, and the
// recommend agent's (agents.Recommender, which a worker adds): package
// agents declares them and its test holds the two equal, so that a process
// without the registry can refuse a mismatched start before the run exists.
var builtinAgentKinds = map[string]string{DefaultAgent: TargetPullRequest, "triage": TargetPullRequest,
	"recommend": "recommendation_request"}

// CheckAgentKind refuses a target of another kind than a built-in agent
// takes. A worker's own agent is checked by the run itself, which fails at
// once with the same message (AgentKindMismatch).
func CheckAgentKind(agent string, t Target) error {
	if kind, ok := builtinAgentKinds[agent]; ok {
		return AgentKindMismatch(agent, kind, t)
	}
	return nil
}

// AgentKindMismatch is the refusal of a target whose kind is not the one
// the agent takes (an empty takes is a pull request), or nil.
func AgentKindMismatch(agent, takes string, t Target) error {
	if takes == "" {
		takes = TargetPullRequest
	}
	if t.KindName() != takes {
		return fmt.Errorf("agent %s takes a %s target, not a %s one", agent, takes, t.KindName())
	}
	return nil
}

// RunTarget is the run's target: RunInput.Target, or the pull request of
// Repo and PullNumber for an input from before targets had kinds. This is
// the one place the two shapes meet.
func (in RunInput) RunTarget() (Target, error) {
	if in.Target == nil {
		t, err := ParseTarget(in.Repo, in.PullNumber)
		t.InstallationID, t.Head, t.ReviewedHead, t.ReviewedDraft = in.InstallationID, in.Head, in.ReviewedHead, in.ReviewedDraft
		return t, err
	}
	if in.Target.IsPullRequest() {
		return Target{}, errors.New("invalid target: a pull request travels as repo and pullNumber (RunInput.WithTarget)")
	}
	if in.Repo != "" || in.PullNumber != 0 {
		return Target{}, fmt.Errorf("invalid target: a %s target takes no repo or pullNumber", in.Target.Kind)
	}
	return NewTarget(in.Target.Kind, in.Target.Fields)
}

// WithTarget is the input acting on t: a pull request sets Repo and
// PullNumber (its wire form), any other kind sets Target.
func (in RunInput) WithTarget(t Target) RunInput {
	in.Target, in.Repo, in.PullNumber, in.InstallationID, in.Head, in.ReviewedHead, in.ReviewedDraft = nil, "", 0, 0, "", "", ""
	if t.IsPullRequest() {
		in.Repo, in.PullNumber, in.InstallationID = t.Owner+"/"+t.Repo, t.PullNumber, t.InstallationID
		in.Head, in.ReviewedHead, in.ReviewedDraft = t.Head, t.ReviewedHead, t.ReviewedDraft
		return in
	}
	in.Target = &t
	return in
}

// ParseTarget reads a run's repository ("owner/name") and pull request
// number, or says what is wrong with them.
func ParseTarget(repo string, pr int) (Target, error) {
	owner, name, ok := strings.Cut(repo, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return Target{}, fmt.Errorf("invalid repo %q: want owner/name", repo)
	}
	if pr <= 0 {
		return Target{}, fmt.Errorf("invalid pullNumber %d: want a positive number", pr)
	}
	return Target{Owner: owner, Repo: name, PullNumber: pr}, nil
}
