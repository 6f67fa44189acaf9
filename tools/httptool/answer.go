package httptool

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strings"
	"unicode"

	"github.com/agentrun/agentrun/api"
)

// minSecretBytes: static header values shorter than this (an API version, a
// "1") are not scrubbed from answers; scrubbing them would garble every
// answer, and they are no secret worth the name.
const minSecretBytes = 8

// snippetBytes bounds how much of a refusal's body an error quotes.
const snippetBytes = 300

const redacted = "[redacted]"

// content is what the model reads of a request the server did.
type content struct {
	Status int `json:"status"`
	// Body is the answer's JSON, or its text as a JSON string.
	Body json.RawMessage `json:"body,omitempty"`
	// Truncated says the body was cut, and where.
	Truncated string `json:"truncated,omitempty"`
	// Location is a 303's: where the server says the result is (it is not
	// fetched).
	Location string `json:"location,omitempty"`
}

// output is a done request's result. A server that replays a stored answer
// says so (Stripe's Idempotent-Replayed); without it the tool cannot tell a
// replay from a first run.
func (t *tool) output(r request, a answer) (api.ToolOutput, error) {
	c := content{Status: a.status}
	c.Body, c.Truncated = t.readableBody(a)
	var location string
	if loc := a.header.Get("Location"); loc != "" && (a.status == http.StatusCreated || a.status == http.StatusSeeOther) {
		if u, err := r.url.Parse(loc); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
			location = t.scrub(u.Redacted())
		}
	}
	if a.status == http.StatusSeeOther {
		c.Location = location
	}
	raw, err := encodeJSON(c)
	if err != nil {
		return api.ToolOutput{}, fmt.Errorf("%s: encode the answer: %w", t.name, err)
	}
	return api.ToolOutput{Content: raw, URL: location, ExternalID: t.externalID(c.Body),
		AlreadyExisted: strings.EqualFold(a.header.Get("Idempotent-Replayed"), "true")}, nil
}

// maxExternalIDBytes bounds the ID a server's answer names.
const maxExternalIDBytes = 100

// externalID is the IDField of a (scrubbed) JSON object answer, when it is
// a string of printable text within maxExternalIDBytes or a number: the
// server's answer is shown to people, and anything else in that place
// could pass for a line of agentrun's own.
func (t *tool) externalID(body json.RawMessage) string {
	if t.idField == "" || len(body) == 0 {
		return ""
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(body, &fields) != nil {
		return ""
	}
	raw := fields[t.idField]
	var id string
	if json.Unmarshal(raw, &id) != nil {
		var n json.Number
		if json.Unmarshal(raw, &n) != nil {
			return ""
		}
		id = n.String()
	}
	if id == "" || len(id) > maxExternalIDBytes || strings.ContainsFunc(id, func(r rune) bool { return !unicode.IsPrint(r) }) {
		return ""
	}
	return id
}

// readableBody is the body as the model reads it: JSON stays JSON, anything
// else (or a body cut at the bound) is text; static header values are
// scrubbed from both, in case the server echoes them.
func (t *tool) readableBody(a answer) (json.RawMessage, string) {
	if len(a.body) == 0 {
		return nil, ""
	}
	truncated := len(a.body) > t.maxResponse
	if !truncated && isJSON(a.header) && json.Valid(a.body) {
		if scrubbed, err := t.scrubJSON(a.body); err == nil {
			return scrubbed, ""
		}
	}
	text := t.scrub(strings.ToValidUTF8(string(a.body), "\uFFFD"))
	note := ""
	if truncated {
		text = api.TruncateUTF8(text, t.maxResponse)
		note = fmt.Sprintf("the body is longer than %d bytes; this is its start", t.maxResponse)
	}
	raw, err := encodeJSON(text)
	if err != nil {
		return nil, "the body could not be shown"
	}
	return raw, note
}

func isJSON(h http.Header) bool {
	mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// describe is an error message for an answer that is not a success: the
// status, the start of what the server said, and what that means.
func (t *tool) describe(a answer, meaning string) string {
	snippet := strings.Join(strings.Fields(t.scrub(strings.ToValidUTF8(string(a.body), "\uFFFD"))), " ")
	if len(snippet) > snippetBytes {
		snippet = api.TruncateUTF8(snippet, snippetBytes) + "…"
	}
	msg := fmt.Sprintf("%s: the server answered %d %s", t.name, a.status, http.StatusText(a.status))
	if snippet != "" {
		msg += ": " + snippet
	}
	return msg + "; " + meaning
}

// secretsOf lists the static header values to scrub, and the words of each
// ("Bearer <token>": the server may echo the token alone), longest first so
// that no shorter one leaves part of a longer one behind.
func secretsOf(h http.Header) []string {
	var secrets []string
	for _, values := range h {
		for _, v := range values {
			for _, s := range append(strings.Fields(v), strings.TrimSpace(v)) {
				if len(s) >= minSecretBytes && !slices.Contains(secrets, s) {
					secrets = append(secrets, s)
				}
			}
		}
	}
	slices.SortFunc(secrets, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	return secrets
}

func (t *tool) longestSecret() int {
	if len(t.secrets) == 0 {
		return 0
	}
	return len(t.secrets[0])
}

func (t *tool) scrub(s string) string {
	for _, secret := range t.secrets {
		s = strings.ReplaceAll(s, secret, redacted)
	}
	return s
}

// scrubJSON scrubs the decoded strings, keys included, so that no JSON escape
// of a secret slips past.
func (t *tool) scrubJSON(raw []byte) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return encodeJSON(t.scrubValue(v))
}

func (t *tool) scrubValue(v any) any {
	switch v := v.(type) {
	case string:
		return t.scrub(v)
	case []any:
		for i := range v {
			v[i] = t.scrubValue(v[i])
		}
		return v
	case map[string]any:
		scrubbed := make(map[string]any, len(v))
		for k, e := range v {
			scrubbed[t.scrub(k)] = t.scrubValue(e)
		}
		return scrubbed
	default:
		return v
	}
}
