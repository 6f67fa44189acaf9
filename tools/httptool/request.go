package httptool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
)

// tool is one configured http_request tool. It is built once and only read.
type tool struct {
	name, description string
	base              *url.URL
	methods, prefixes []string
	header            http.Header
	// secrets are the static header values scrubbed from what the server
	// answers, longest first.
	secrets     []string
	client      *http.Client
	maxResponse int
	words       api.ToolWords
	idField     string
}

// args are a call's arguments as the model writes them.
type args struct {
	Method string            `json:"method"`
	Path   string            `json:"path"`
	Body   json.RawMessage   `json:"body,omitempty"`
	Query  map[string]string `json:"query,omitempty"`
}

// request is one checked call: exactly what is shown, approved and sent.
type request struct {
	method string
	url    *url.URL
	// body is canonical JSON; nil for none.
	body []byte
}

// forbidden are the path fragments refused outright: each can make a server
// (or a proxy in front of it) resolve the path to somewhere the prefix check
// did not see. A '%' is refused whole, so that no encoded form (%2e%2e,
// %2f, double encoding) can hide one of the others: paths are given
// unescaped and the tool escapes them.
var forbidden = []string{"..", "//", `\`, "@", "%", "?", "#", ";"}

// Spec describes the tool and its arguments.
func (t *tool) Spec() api.ToolSpec {
	schema := map[string]any{
		"type":                 "object",
		"additionalProperties": false,
		"required":             []string{"method", "path"},
		"properties": map[string]any{
			"method": map[string]any{"type": "string", "enum": t.methods},
			"path": map[string]any{"type": "string", "description": "The path after " + t.base.String() +
				", unescaped, starting with one of: " + strings.Join(t.prefixes, ", ")},
			"body":  map[string]any{"description": "The JSON body, if any"},
			"query": map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}},
		},
	}
	raw, _ := json.Marshal(schema) // a map of strings and slices always marshals
	return api.ToolSpec{Name: t.name, Description: t.description, Parameters: raw, SideEffect: true,
		Words: t.words, PreviewKind: api.PreviewHTTP}
}

// Preview is the request line, then the body: every argument, never the
// static headers (which are the same for every call, and may be secret).
func (t *tool) Preview(call tools.Call) (string, error) {
	r, err := t.plan(call)
	if err != nil {
		return "", err
	}
	return r.preview(), nil
}

// Touches is the host and path the request acts on.
func (t *tool) Touches(call tools.Call) (string, error) {
	r, err := t.plan(call)
	if err != nil {
		return "", err
	}
	return r.url.Host + r.url.EscapedPath(), nil
}

func (r request) preview() string {
	body := "(no body)"
	if r.body != nil {
		body = string(r.body)
	}
	return r.method + " " + r.url.String() + "\n" + body
}

// plan checks a call's arguments and builds its request. Preview, Touches,
// Execute and Reconcile all go through it, so what runs is what was shown.
func (t *tool) plan(call tools.Call) (request, error) {
	a, err := decodeArgs(call.Args)
	if err != nil {
		return request{}, err
	}
	if !slices.Contains(t.methods, a.Method) {
		return request{}, fmt.Errorf("method %q: want one of %s", a.Method, strings.Join(t.methods, ", "))
	}
	if err := checkPath(a.Path); err != nil {
		return request{}, fmt.Errorf("path %q: %w", a.Path, err)
	}
	if !slices.ContainsFunc(t.prefixes, func(p string) bool { return underPrefix(a.Path, p) }) {
		return request{}, fmt.Errorf("path %q: want one under %s", a.Path, strings.Join(t.prefixes, ", "))
	}
	r := request{method: a.Method}
	if r.body, err = canonicalBody(a.Body); err != nil {
		return request{}, err
	}
	if r.body != nil && a.Method == http.MethodGet {
		return request{}, errors.New("a GET takes no body")
	}
	query := url.Values{}
	for k, v := range a.Query {
		if k == "" {
			return request{}, errors.New("query: a parameter has an empty name")
		}
		query.Set(k, v)
	}
	if r.url, err = t.resolve(a.Path, query); err != nil {
		return request{}, fmt.Errorf("path %q: %w", a.Path, err)
	}
	return r, nil
}

// decodeArgs reads the arguments strictly: Check already held them to the
// schema, but Preview and Execute must not trust that they came through it.
func decodeArgs(raw json.RawMessage) (args, error) {
	var a args
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return args{}, fmt.Errorf("arguments: %w", err)
	}
	if dec.More() {
		return args{}, errors.New("arguments: more than one JSON value")
	}
	return a, nil
}

// checkPath refuses a path that could leave the prefix it seems to be under.
func checkPath(p string) error {
	if !strings.HasPrefix(p, "/") {
		return errors.New(`want a path starting with "/"`)
	}
	for _, c := range []byte(p) {
		// Non-ASCII is refused too: some servers fold look-alikes
		// (fullwidth dots and slashes) into the characters refused below.
		if c < 0x20 || c >= 0x7f {
			return errors.New("want printable ASCII only")
		}
	}
	for _, f := range forbidden {
		if strings.Contains(p, f) {
			return fmt.Errorf("%q is not allowed in a path", f)
		}
	}
	if slices.Contains(strings.Split(p, "/"), ".") {
		return errors.New(`a "." segment is not allowed in a path`)
	}
	return nil
}

// underPrefix matches whole segments, so that "/v1/orders" does not allow
// "/v1/orders-admin".
func underPrefix(path, prefix string) bool {
	if !strings.HasPrefix(path, prefix) {
		return false
	}
	return len(path) == len(prefix) || strings.HasSuffix(prefix, "/") || path[len(prefix)] == '/'
}

// resolve builds the request URL and then parses it back, as the client will:
// whatever the checks above missed, the URL that is sent must still name the
// BaseURL's scheme and host, and exactly the path that was checked.
func (t *tool) resolve(path string, query url.Values) (*url.URL, error) {
	u := *t.base
	u.Path = t.base.Path + path
	u.RawPath = ""
	u.RawQuery = query.Encode()
	s := u.String()
	if len(s) > maxURLBytes {
		return nil, fmt.Errorf("the URL is %d bytes, more than %d", len(s), maxURLBytes)
	}
	sent, err := url.Parse(s)
	switch {
	case err != nil:
		return nil, fmt.Errorf("the URL does not parse: %w", err)
	case sent.Scheme != t.base.Scheme || sent.Host != t.base.Host || sent.User != nil:
		return nil, errors.New("the URL leaves " + t.base.String())
	case sent.Path != u.Path || sent.Fragment != "" || sent.Opaque != "":
		return nil, errors.New("the URL does not keep the path as given")
	}
	return sent, nil
}

// canonicalBody is the body as canonical JSON (sorted keys, numbers as
// written), or nil for none: the bytes shown are the bytes sent.
func canonicalBody(raw json.RawMessage) ([]byte, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("body: %w", err)
	}
	body, err := encodeJSON(v)
	if err != nil {
		return nil, fmt.Errorf("body: %w", err)
	}
	if len(body) > MaxBodyBytes {
		return nil, fmt.Errorf("body: %d bytes of JSON, more than %d", len(body), MaxBodyBytes)
	}
	return body, nil
}

// encodeJSON marshals without HTML escaping, so that a person approving a
// body reads "<" rather than "\u003c".
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
