// Package offline is the deterministic model: no network, no provider
// account, the same decision for the same conversation. It drives the
// pr-review agent (one issue comment, or one pull request review with inline
// comments) and the triage agent (labels and follow-up issues), choosing
// between them by the tools it is offered.
package offline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentrun/agentrun/api"
)

// ModelName is Decision.Model for the offline reviewer.
const ModelName = "offline"

// Reviewer is a deterministic Model: it reads the pull request with the
// read tools, reviews the real patches with fixed rules, proposes its one
// turn of actions (behaviourFor says which) and then reports what became of
// them. The same conversation always yields the same Decision, so a run is
// reproducible without any model provider.
type Reviewer struct{}

// NewReviewer returns the offline reviewer.
func NewReviewer() *Reviewer { return &Reviewer{} }

// AnswersAtOnce: the reviewer decides in-process, in microseconds, and has
// nothing to stream, so a run's later calls to it may be local activities
// (activities.ModelNext answers ModelDecision.Local).
func (*Reviewer) AnswersAtOnce() bool { return true }

// fetchTools are the read tools the review needs, in the order they are called.
var fetchTools = [...]string{api.ToolGetPullRequest, api.ToolListPullRequestFiles}

// Next decides the next move from the conversation: fetch the pull request,
// then propose the actions, then give the final answer.
func (r *Reviewer) Next(ctx context.Context, conversation []api.Message, tools []api.ToolSpec) (api.ModelDecision, error) {
	if err := ctx.Err(); err != nil {
		return api.ModelDecision{}, fmt.Errorf("offline reviewer: %w", err)
	}
	d, err := decide(ctx, readConversation(conversation), tools, len(conversation))
	if err != nil {
		return api.ModelDecision{}, fmt.Errorf("offline reviewer: %w", err)
	}
	d.Model = ModelName
	d.Usage = estimateUsage(conversation, tools, d)
	return d, nil
}

// decide is the whole dialogue, one turn at a time. What the agent does
// follows from the tools it is offered (behaviourFor), never from the
// prompt's text, so that the same conversation always gets the same answer.
func decide(ctx context.Context, c conversation, tools []api.ToolSpec, turn int) (api.ModelDecision, error) {
	if offered(tools, toolSearchMerchants) {
		return c.recommend(tools, turn)
	}
	// Feedback instead of a decision: propose again, revised.
	rev, revise := c.feedback()
	if result, ok := c.results[api.ToolCreateIssueComment]; ok && !revise {
		return c.commentOutcome(ctx, result)
	}
	if result, ok := c.results[api.ToolCreatePullRequestReview]; ok && !revise {
		return c.reviewOutcome(ctx, result)
	}
	if c.proposedTriage() {
		return c.triageOutcome(tools), nil
	}
	b := behaviourFor(tools)
	var missing []string
	for _, name := range fetchTools {
		result, ok := c.results[name]
		if !ok {
			missing = append(missing, name)
			continue
		}
		if failure := failedResult(name, result); failure != "" {
			return undone(fmt.Sprintf("Could not %s %s: %s", b.task(), c.label(nil), failure)), nil
		}
	}
	if len(missing) > 0 {
		return fetchCalls(c, b, missing, tools, turn), nil
	}
	pr := c.pullRequest()
	if b == triage {
		return c.proposeTriage(pr, c.files(), tools, turn)
	}
	files := rev.files(c.files())
	if left := c.listing().LeftOut; len(files) == 0 && left != nil {
		return undone(fmt.Sprintf("Could not %s %s: %s, so no comment was proposed.", b.task(), c.label(&pr), left.Reason)), nil
	}
	if len(files) == 0 {
		return final(fmt.Sprintf("Nothing to review: %s changes no files, so no comment was proposed.", c.label(&pr))), nil
	}
	review, err := c.review(ctx, pr, files)
	if err != nil {
		return api.ModelDecision{}, err
	}
	review.Brief = rev.shorter
	body := review.commentBody(c.heading(pr), inert(c.target.goal))
	if b == inlineReview {
		return proposeReview(body, files, rev.shorter, turn)
	}
	if !offered(tools, api.ToolCreateIssueComment) {
		return final(fmt.Sprintf("Reviewed %s (%s) but the %s tool is not offered, so nothing was posted.\n\n%s",
			c.label(&pr), countFindings(len(review.Findings)), api.ToolCreateIssueComment, body)), nil
	}
	args, err := json.Marshal(struct {
		Body string `json:"body"`
	}{body})
	if err != nil {
		return api.ModelDecision{}, fmt.Errorf("encode comment arguments: %w", err)
	}
	return api.ModelDecision{ToolCalls: []api.ToolCall{toolCall(turn, api.ToolCreateIssueComment, args)}}, nil
}

// fetchCalls asks for the read tools the conversation has no result of yet.
func fetchCalls(c conversation, b behaviour, missing []string, tools []api.ToolSpec, turn int) api.ModelDecision {
	var calls []api.ToolCall
	var absent []string
	for _, name := range missing {
		if !offered(tools, name) {
			absent = append(absent, name)
			continue
		}
		calls = append(calls, toolCall(turn, name, json.RawMessage(`{}`)))
	}
	if len(absent) > 0 {
		return undone(fmt.Sprintf("Could not %s %s: the %s %s not offered, and the %s needs %s.",
			b.task(), c.label(nil), strings.Join(absent, " and "), plural(len(absent), "tool is", "tools are"), b.task(),
			strings.Join(fetchTools[:], " and ")))
	}
	return api.ModelDecision{ToolCalls: calls}
}

// commentOutcome is the final answer once the comment tool has answered.
func (c conversation) commentOutcome(ctx context.Context, result string) (api.ModelDecision, error) {
	label, review, err := c.reviewed(ctx)
	if err != nil {
		return api.ModelDecision{}, err
	}
	if review != nil && editedBy(result) == "" {
		// An edited comment says what its editor wrote, not these findings.
		label += " (" + countFindings(len(review.Findings)) + review.leftOutCount() + ")"
	}
	posted, ok := decodeComment(result)
	if ok && posted.CommentID == 0 {
		return final(fmt.Sprintf("The review of %s may not have been posted: the comment tool returned no comment id.", label)), nil
	}
	return withEditor(postedAnswer(label, result, ok, posting{existed: posted.AlreadyExisted,
		as: fmt.Sprintf(" as comment %d", posted.CommentID), url: posted.HTMLURL}), result), nil
}

// posting is what the tool that posts the review said it made: as names it
// (" as comment 12"), or is empty when the result did not say.
type posting struct {
	existed bool
	as, url string
}

// postedAnswer is the final answer about the review named subject once the
// tool that posts it has answered result; ok says whether the result read
// as that tool's success.
func postedAnswer(subject, result string, ok bool, p posting) api.ModelDecision {
	switch {
	case strings.HasPrefix(result, api.InDoubtAnswer):
		return final(fmt.Sprintf("The review of %s may have been posted; nobody saw whether it was: %s.", subject, quote(result)))
	case !ok:
		return final(fmt.Sprintf("The review of %s was not posted: %s.", subject, quote(result)))
	case p.existed:
		return final(fmt.Sprintf("The review of %s was already posted%s%s; nothing new was created.", subject, p.as, atURL(p.url)))
	}
	return final(fmt.Sprintf("Posted the review of %s%s%s.", subject, p.as, atURL(p.url)))
}

// reviewed is what a final answer says about the review: the pull request's
// label and, when both reads answered, the review itself (else nil).
func (c conversation) reviewed(ctx context.Context) (string, *Review, error) {
	if !c.fetched() {
		return c.label(nil), nil, nil
	}
	rev, _ := c.feedback()
	pr := c.pullRequest()
	review, err := c.review(ctx, pr, rev.files(c.files()))
	if err != nil {
		return "", nil, err
	}
	return c.label(&pr), &review, nil
}

// review is the review of files, the listing's files the feedback kept,
// with what the listing left out unread.
func (c conversation) review(ctx context.Context, pr api.PullRequest, files []api.PullRequestFile) (Review, error) {
	l := c.listing()
	totals := pr
	if l.Range != nil && !l.Range.Full {
		totals = api.PullRequest{} // the push's files are the whole of it
	}
	review, err := reviewFiles(ctx, totals, files)
	review.LeftOut = l.LeftOut
	review.Range = l.Range
	listed := len(l.Files)
	if l.LeftOut != nil {
		listed += l.LeftOut.Count
	}
	if l.Range != nil && !l.Range.Full {
		// A push's change is not the pull request: its totals do not apply.
		return review, err
	}
	// GitHub lists at most 3,000 of a pull request's files; its count of
	// changed files says how many it did not list.
	review.Unlisted = max(pr.ChangedFiles-listed, 0)
	return review, err
}

func atURL(url string) string {
	if url == "" {
		return ""
	}
	return " (" + url + ")"
}

// conversation is what the reviewer knows from the messages so far.
type conversation struct {
	target reviewTarget
	// user is the first user message, whose target a non-PR agent reads.
	user string
	// results holds the latest result of each tool, by tool name.
	results map[string]string
	// calls are the tool calls the assistant made, in order, and answers
	// their results by call ID: a turn may call one tool several times.
	calls   []api.ToolCall
	answers map[string]string
}

// reviewTarget is the pull request the user message asks about.
type reviewTarget struct {
	owner, repo string
	number      int
	goal        string
}

// userRequest matches the first line the workflow writes, whatever the
// agent's verb ("Review pull request", "Triage pull request").
var userRequest = regexp.MustCompile(`^\s*[A-Z][a-z]* pull request ([^/\s]+)/([^#\s]+)#(\d+)`)

// readConversation pairs every tool result with the tool that produced it,
// through the ToolCallID of the assistant's call.
func readConversation(messages []api.Message) conversation {
	c := conversation{results: map[string]string{}, answers: map[string]string{}}
	callNames := map[string]string{}
	userSeen := false
	for _, m := range messages {
		switch m.Role {
		case api.RoleUser:
			if !userSeen {
				c.target = parseUserRequest(m.Content)
				c.user = m.Content
				userSeen = true
				continue
			}
			// A later user message is a follow-up: what was read still
			// holds, but what the earlier turns did is history, and the
			// new goal is the one to act on.
			c.forgetActions()
			if _, goal, ok := strings.Cut(m.Content, "\nGoal:"); ok {
				c.target.goal = clip(oneLine(strings.TrimSpace(goal)), 500)
			}
		case api.RoleAssistant:
			for _, call := range m.ToolCalls {
				callNames[call.ID] = call.Name
				c.calls = append(c.calls, call)
			}
		case api.RoleTool:
			name, ok := callNames[m.ToolCallID]
			if ok {
				c.answers[m.ToolCallID] = m.Content
			} else {
				name = m.Name
			}
			if name != "" {
				c.results[name] = m.Content
			}
		}
	}
	return c
}

// forgetActions drops every result but the reads' and every call: a
// follow-up proposes anew, and never takes an earlier turn's post for its own.
func (c *conversation) forgetActions() {
	for name := range c.results {
		if !slices.Contains(fetchTools[:], name) {
			delete(c.results, name)
		}
	}
	c.calls, c.answers = nil, map[string]string{}
}

func parseUserRequest(content string) reviewTarget {
	var t reviewTarget
	if m := userRequest.FindStringSubmatch(content); m != nil {
		t.owner, t.repo = m[1], strings.TrimSuffix(m[2], ".")
		t.number, _ = strconv.Atoi(m[3])
	}
	if _, goal, ok := strings.Cut(content, "\nGoal:"); ok {
		t.goal = clip(oneLine(strings.TrimSpace(goal)), 500)
	}
	return t
}

// fetched is true when both read tools answered with usable results.
func (c conversation) fetched() bool {
	for _, name := range fetchTools {
		result, ok := c.results[name]
		if !ok || failedResult(name, result) != "" {
			return false
		}
	}
	return true
}

// pullRequest and files decode results that failedResult accepted.
func (c conversation) pullRequest() api.PullRequest {
	var pr api.PullRequest
	_ = json.Unmarshal([]byte(c.results[api.ToolGetPullRequest]), &pr)
	return pr
}

func (c conversation) files() []api.PullRequestFile { return c.listing().Files }

// listing is list_pull_request_files' result: its files and what it left out.
func (c conversation) listing() api.PullRequestFiles {
	l, _ := decodeListing(c.results[api.ToolListPullRequestFiles])
	return l
}

// decodeListing reads a list_pull_request_files result: the listing object,
// or the bare array of files that earlier builds answered with (a follow-up
// carries an earlier run's conversation). A result the worker cut as text
// (its "truncated" field) is not a listing: its cut says so.
func decodeListing(content string) (api.PullRequestFiles, error) {
	trimmed := strings.TrimSpace(content)
	var l api.PullRequestFiles
	if strings.HasPrefix(trimmed, "[") || trimmed == "null" {
		return l, json.Unmarshal([]byte(trimmed), &l.Files)
	}
	var cut struct {
		Truncated bool `json:"truncated"`
		Bytes     int  `json:"bytes"`
	}
	if err := json.Unmarshal([]byte(trimmed), &cut); err == nil && cut.Truncated {
		return l, cutListing{bytes: cut.Bytes}
	}
	return l, json.Unmarshal([]byte(trimmed), &l)
}

// cutListing is a listing the worker cut as text, past its result bound:
// no file of it can be read as a file.
type cutListing struct{ bytes int }

func (e cutListing) Error() string {
	return fmt.Sprintf("the listing of its files (%d bytes) was cut as text at the worker's bound of %d KiB, so no file of it could be read",
		e.bytes, api.MaxToolResultBytes>>10)
}

// failedResult explains why a read tool's result is unusable, or returns "".
// Tools answer with JSON on success and with plain error text on failure;
// a listing cut as text is no failure of the tool, and is told as what it is.
func failedResult(tool, content string) string {
	trimmed := strings.TrimSpace(content)
	var err error
	switch tool {
	case api.ToolGetPullRequest:
		var pr api.PullRequest
		if !strings.HasPrefix(trimmed, "{") {
			return fmt.Sprintf("%s failed: %s", tool, quote(content))
		}
		err = json.Unmarshal([]byte(trimmed), &pr)
	case api.ToolListPullRequestFiles:
		if !strings.HasPrefix(trimmed, "[") && !strings.HasPrefix(trimmed, "{") && trimmed != "null" {
			return fmt.Sprintf("%s failed: %s", tool, quote(content))
		}
		_, err = decodeListing(trimmed)
		var cut cutListing
		if errors.As(err, &cut) {
			return cut.Error()
		}
	}
	if err != nil {
		return fmt.Sprintf("%s returned a result that is not valid JSON (%v): %s", tool, err, quote(content))
	}
	return ""
}

// decodeComment reads a create_issue_comment result; ok is false when the
// tool answered with failure text instead of a CommentResult.
func decodeComment(content string) (api.CommentResult, bool) {
	trimmed := strings.TrimSpace(content)
	var res api.CommentResult
	if !strings.HasPrefix(trimmed, "{") || json.Unmarshal([]byte(trimmed), &res) != nil {
		return api.CommentResult{}, false
	}
	return res, true
}

// label names the pull request as precisely as the conversation allows.
func (c conversation) label(pr *api.PullRequest) string {
	number := c.target.number
	if number == 0 && pr != nil {
		number = pr.Number
	}
	switch {
	case c.target.owner != "" && number > 0:
		return fmt.Sprintf("%s/%s#%d", c.target.owner, c.target.repo, number)
	case number > 0:
		return fmt.Sprintf("pull request #%d", number)
	default:
		return "the pull request"
	}
}

// heading is the comment's title: the pull request and its title.
func (c conversation) heading(pr api.PullRequest) string {
	title := clip(oneLine(pr.Title), 200)
	if title == "" {
		return c.label(&pr)
	}
	return c.label(&pr) + ": " + plainText(title)
}

// inert neutralises HTML in the run's goal so that it can neither hide
// content nor fake the operation marker the comment tool appends. The goal is
// the starter's text, who may mean its Markdown; the PR author's title goes
// through plainText instead.
func inert(s string) string { return strings.ReplaceAll(s, "<", "&lt;") }

func toolCall(turn int, name string, args json.RawMessage) api.ToolCall {
	return api.ToolCall{ID: fmt.Sprintf("call_%d_%s", turn, name), Name: name, Arguments: args}
}

func final(text string) api.ModelDecision { return api.ModelDecision{Final: text} }

// undone is a final answer that says the task could not be done.
func undone(text string) api.ModelDecision { return api.ModelDecision{Final: text, Undone: true} }

func offered(tools []api.ToolSpec, name string) bool {
	for _, t := range tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// quote shows a tool's text in a final answer on one line and bounded.
func quote(s string) string { return strconv.Quote(clip(strings.TrimSpace(s), 300)) }

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// clip shortens s to at most n bytes without splitting a UTF-8 character.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// estimateUsage estimates tokens as a quarter of the bytes read and written,
// the usual rule of thumb for English and code. The offline reviewer has no
// tokenizer, so these are estimates, but deterministic ones.
func estimateUsage(conversation []api.Message, tools []api.ToolSpec, d api.ModelDecision) api.Usage {
	var prompt int
	for _, m := range conversation {
		prompt += len(m.Role) + len(m.Content) + len(m.ToolCallID) + len(m.Name) + callBytes(m.ToolCalls)
	}
	for _, t := range tools {
		prompt += len(t.Name) + len(t.Description) + len(t.Parameters)
	}
	completion := len(d.Final) + callBytes(d.ToolCalls)
	return api.Usage{PromptTokens: tokens(prompt), CompletionTokens: tokens(completion)}
}

func callBytes(calls []api.ToolCall) int {
	n := 0
	for _, c := range calls {
		n += len(c.ID) + len(c.Name) + len(c.Arguments)
	}
	return n
}

func tokens(bytes int) int64 { return int64((bytes + 3) / 4) }
