package ghsandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxRequestBody bounds what the sandbox reads from a client.
const MaxRequestBody = 1 << 20

// GitHub's limits on what the new write endpoints accept.
const (
	maxBodyRunes      = 65536
	maxTitleRunes     = 256
	maxLabelNameRunes = 50
	MaxLabelsPerIssue = 100
	missingField      = "missing_field"
	customCode        = "custom"
	resourceIssue     = "Issue"
	resourceLabel     = "Label"
)

// DecodeBody reads the JSON body of r into v, or answers what GitHub answers
// for a body it cannot read: 413 when too large, 400 when not JSON.
func DecodeBody(r *http.Request, docs string, v any) (Response, bool) {
	err := json.NewDecoder(http.MaxBytesReader(nil, r.Body, MaxRequestBody)).Decode(v)
	if err == nil {
		return Response{}, true
	}
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return Error(http.StatusRequestEntityTooLarge, "Payload Too Large", docs), false
	}
	return Error(http.StatusBadRequest, "Problems parsing JSON", docs), false
}

// CheckBody is GitHub's rule for the body of a comment or issue.
func CheckBody(resource string, body *string, required bool) (ValidationError, bool) {
	switch {
	case body == nil || strings.TrimSpace(*body) == "":
		if !required {
			return ValidationError{}, false
		}
		return ValidationError{Resource: resource, Field: "body", Code: missingField}, true
	case utf8.RuneCountInString(*body) > maxBodyRunes:
		return ValidationError{
			Resource: resource, Field: "body", Code: customCode,
			Message: "body is too long (maximum is 65536 characters)",
		}, true
	}
	return ValidationError{}, false
}

// LabelNames is a list of labels as GitHub accepts it in a request: names,
// or objects with a name.
type LabelNames []string

// UnmarshalJSON reads each entry as a name or as {"name": ...}.
func (l *LabelNames) UnmarshalJSON(raw []byte) error {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return err
	}
	names := make(LabelNames, 0, len(items))
	for _, item := range items {
		var name string
		if err := json.Unmarshal(item, &name); err != nil {
			var obj struct {
				Name *string `json:"name"`
			}
			if err := json.Unmarshal(item, &obj); err != nil || obj.Name == nil {
				return errors.New("a label is a name or an object with a name")
			}
			name = *obj.Name
		}
		names = append(names, name)
	}
	*l = names
	return nil
}

// AddLabelsRequest is the body of POST .../issues/{number}/labels: GitHub
// takes {"labels": [...]} and, as go-github sends it, a bare list.
type AddLabelsRequest struct {
	Labels LabelNames
}

// UnmarshalJSON accepts both shapes.
func (a *AddLabelsRequest) UnmarshalJSON(raw []byte) error {
	if trimmed := bytes.TrimSpace(raw); len(trimmed) > 0 && trimmed[0] == '[' {
		return json.Unmarshal(raw, &a.Labels)
	}
	var obj struct {
		Labels *LabelNames `json:"labels"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return err
	}
	if obj.Labels != nil {
		a.Labels = *obj.Labels
	}
	return nil
}

// CheckLabelNames is GitHub's rule for the labels of one request; atLeastOne
// is the add-labels endpoint's, which refuses an empty list.
func CheckLabelNames(names LabelNames, atLeastOne bool) (ValidationError, bool) {
	if atLeastOne && len(names) == 0 {
		return ValidationError{Resource: resourceLabel, Field: "labels", Code: missingField}, true
	}
	if len(names) > MaxLabelsPerIssue {
		return TooManyLabels(), true
	}
	for _, name := range names {
		switch {
		case strings.TrimSpace(name) == "":
			return ValidationError{Resource: resourceLabel, Field: "name", Code: missingField}, true
		case utf8.RuneCountInString(name) > maxLabelNameRunes:
			return ValidationError{
				Resource: resourceLabel, Field: "name", Code: customCode,
				Message: "name is too long (maximum is 50 characters)",
			}, true
		}
	}
	return ValidationError{}, false
}

// TooManyLabels is GitHub's refusal of an issue past its label limit.
func TooManyLabels() ValidationError {
	return ValidationError{
		Resource: resourceLabel, Field: "labels", Code: customCode,
		Message: "an issue can have at most " + strconv.Itoa(MaxLabelsPerIssue) + " labels",
	}
}

// CreateIssueRequest is the body of POST /repos/{owner}/{repo}/issues.
// Assignees and milestones are accepted and, as GitHub does for a token
// without push access to them, dropped.
type CreateIssueRequest struct {
	Title  json.RawMessage `json:"title"`
	Body   *string         `json:"body"`
	Labels LabelNames      `json:"labels"`
	// NullLabels is a request that sent "labels": null, which GitHub's
	// schema check refuses (labels may be left out, never null).
	NullLabels bool `json:"-"`
}

// UnmarshalJSON reads the request and whether its labels were null.
func (c *CreateIssueRequest) UnmarshalJSON(raw []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return err
	}
	type plain CreateIssueRequest
	if err := json.Unmarshal(raw, (*plain)(c)); err != nil {
		return err
	}
	c.NullLabels = string(fields["labels"]) == "null"
	return nil
}

// CheckedTitle is the title GitHub would store: a string, or a number it
// turns into one.
func (c CreateIssueRequest) CheckedTitle() (string, ValidationError, bool) {
	var title string
	if err := json.Unmarshal(c.Title, &title); err != nil {
		var n json.Number
		if json.Unmarshal(c.Title, &n) != nil {
			return "", ValidationError{Resource: resourceIssue, Field: "title", Code: missingField}, true
		}
		title = n.String()
	}
	switch {
	case strings.TrimSpace(title) == "":
		return "", ValidationError{Resource: resourceIssue, Field: "title", Code: missingField}, true
	case utf8.RuneCountInString(title) > maxTitleRunes:
		return "", ValidationError{
			Resource: resourceIssue, Field: "title", Code: customCode,
			Message: "title is too long (maximum is 256 characters)",
		}, true
	}
	return title, ValidationError{}, false
}
