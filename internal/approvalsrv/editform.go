// This file is the run page's edit form: an action's arguments as fields
// made from its tool's argument schema (api.PendingAction.ArgsSchema), a
// text area for a long string such as a comment's body, an input, a select
// or a checkbox for the rest, and its raw JSON only as an "advanced"
// fallback. The fields come back as the action's arguments (editedArgs);
// the run checks them again as it checks the model's.

package approvalsrv

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/agentrun/agentrun/api"
)

// Form field names of the edit form. A field is argField+kind+"."+name, so
// that its value is read back as its kind without the schema.
const (
	argField      = "arg."
	argsBaseField = "argsBase" // the arguments the fields started from
	argsRawField  = "argsJSON" // the advanced raw JSON
	// decisionChanges is the "Show changes" button: the diff of the edit
	// against the model's proposal, nothing sent.
	decisionChanges = "changes"
)

// Kinds of edit field.
const (
	fieldText    = "text"    // a multi-line string: a text area
	fieldLine    = "line"    // a one-line string
	fieldEnum    = "enum"    // a string from a list
	fieldInteger = "integer" // a whole number
	fieldNumber  = "number"
	fieldBool    = "bool"
	fieldJSON    = "json" // an object, a list or anything else, as JSON
)

// longString is the length past which a string argument gets a text area.
const longString = 200

// editField is one argument in the edit form.
type editField struct {
	Name     string
	Input    string // the form field's name
	ID       string
	Kind     string
	Help     string
	Value    string
	Options  []string
	Required bool
	Rows     int
}

// editForm is an editable action's form: its fields, the raw JSON, and
// what the person typed when the page comes back to them (an error, or
// the changes they asked to see).
type editForm struct {
	Fields []editField
	Base   string
	Raw    string
	// Error says what is wrong with what was typed; Changes are the
	// edit's changes against the proposal. Open: the edit box starts open.
	Error   string
	Changes changesView
	Open    bool
	// Reason is the reason or feedback typed with it.
	Reason string
	// RawOpen: the advanced raw JSON was what the person edited.
	RawOpen bool
}

// typedEdit is what a person posted in an action's edit form, for the page
// that answers it without script: the form comes back as they typed it.
type typedEdit struct {
	ActionID string
	Values   url.Values
	Error    string
	// ShowChanges: the person asked for Changes ("Show changes").
	ShowChanges bool
	Changes     []fieldChange
}

// changesView is what "Show changes" shows.
type changesView struct {
	Shown   bool
	Error   string
	Changes []fieldChange
}

func (t *typedEdit) changesView() changesView {
	return changesView{Shown: t.ShowChanges, Error: t.Error, Changes: t.Changes}
}

type schemaProp struct {
	Type        any      `json:"type"`
	Enum        []any    `json:"enum"`
	MaxLength   *int     `json:"maxLength"`
	Description string   `json:"description"`
	Title       string   `json:"title"`
	Required    []string `json:"-"`
}

// newEditForm is the edit form of action a, with the values typed, when
// given, in place of its arguments.
func newEditForm(a api.PendingAction, suffix string, typed *typedEdit) *editForm {
	var args map[string]json.RawMessage
	if json.Unmarshal(a.Args, &args) != nil || args == nil {
		return nil
	}
	f := &editForm{Base: string(a.Args), Raw: prettyJSON(a.Args)}
	names, props, required := schemaProps(a.ArgsSchema)
	seen := map[string]bool{}
	for _, n := range names {
		seen[n] = true
	}
	var extra []string
	for n := range args {
		if !seen[n] {
			extra = append(extra, n)
		}
	}
	sort.Strings(extra)
	for i, name := range append(names, extra...) {
		f.Fields = append(f.Fields, newEditField(name, props[name], args[name], required[name], fmt.Sprintf("arg%s-%d", suffix, i+1)))
	}
	if typed != nil {
		f.Open, f.Error, f.Changes, f.Reason = true, typed.Error, typed.changesView(), typed.Values.Get("reason")
		f.Changes.Error = "" // said once, at the top of the form
		for i := range f.Fields {
			if v, ok := typed.Values[f.Fields[i].Input]; ok && len(v) > 0 {
				f.Fields[i].Value = v[len(v)-1]
			}
		}
		if raw := typed.Values.Get(argsRawField); raw != "" {
			f.Raw = raw
			f.RawOpen = !sameJSON(raw, f.Base)
		}
	}
	return f
}

func newEditField(name string, p schemaProp, value json.RawMessage, required bool, id string) editField {
	field := editField{Name: name, ID: id, Help: p.Description, Required: required}
	typ, _ := p.Type.(string)
	if typ == "" {
		typ = jsonType(value) // no schema says: as the proposal has it
	}
	var s string
	isString := len(value) == 0 || json.Unmarshal(value, &s) == nil
	switch {
	case typ == "string" && len(p.Enum) > 0 && isString:
		field.Kind, field.Value = fieldEnum, s
		for _, e := range p.Enum {
			if str, ok := e.(string); ok {
				field.Options = append(field.Options, str)
			}
		}
	case typ == "string" && isString:
		field.Kind, field.Value = fieldLine, s
		long := p.MaxLength == nil && len(s) > 80 || p.MaxLength != nil && *p.MaxLength > longString
		if long || strings.Contains(s, "\n") {
			field.Kind = fieldText
			field.Rows = min(max(strings.Count(s, "\n")+2, 6), 24)
		}
	case typ == "integer" || typ == "number":
		field.Kind, field.Value = typ, string(value)
	case typ == "boolean":
		field.Kind, field.Value = fieldBool, string(value)
	default:
		field.Kind, field.Value, field.Rows = fieldJSON, prettyJSON(value), 4
		field.Rows = min(max(strings.Count(field.Value, "\n")+2, 3), 16)
	}
	field.Input = argField + field.Kind + "." + name
	return field
}

// jsonType is the schema type of a JSON value: "string", "number",
// "boolean", or "" for anything else.
func jsonType(v json.RawMessage) string {
	switch t := bytes.TrimSpace(v); {
	case len(t) == 0:
		return ""
	case t[0] == '"':
		return "string"
	case t[0] == 't' || t[0] == 'f':
		return "boolean"
	case t[0] == '-' || '0' <= t[0] && t[0] <= '9':
		return "number"
	}
	return ""
}

// schemaProps reads an object schema's properties in the order the schema
// lists them, and which are required.
func schemaProps(schema json.RawMessage) ([]string, map[string]schemaProp, map[string]bool) {
	var s struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	props := map[string]schemaProp{}
	required := map[string]bool{}
	if json.Unmarshal(schema, &s) != nil || json.Unmarshal(s.Properties, &props) != nil {
		return nil, map[string]schemaProp{}, required
	}
	for _, r := range s.Required {
		required[r] = true
	}
	return objectKeys(s.Properties), props, required
}

// objectKeys are a JSON object's keys in their order.
func objectKeys(raw json.RawMessage) []string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return keys
		}
		key, _ := t.(string)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return keys
		}
		keys = append(keys, key)
	}
	return keys
}

func prettyJSON(raw json.RawMessage) string {
	var out bytes.Buffer
	if len(raw) == 0 || json.Indent(&out, raw, "", "  ") != nil {
		return string(raw)
	}
	return out.String()
}

func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// editedArgs are the arguments a posted edit form gives: its raw JSON when
// that is what the person changed, else its fields. It returns "" when the
// form has no edit box, and why what was typed is not arguments.
func editedArgs(form url.Values) (json.RawMessage, string) {
	base := form.Get(argsBaseField)
	if base == "" {
		// A form from before the fields: the raw JSON box was "args".
		return json.RawMessage(strings.TrimSpace(form.Get("args"))), ""
	}
	fields, problem := fieldArgs(form, base)
	if problem != "" {
		return nil, problem
	}
	raw := strings.TrimSpace(form.Get(argsRawField))
	if raw == "" || sameJSON(raw, base) {
		return fields, ""
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(raw), &obj); err != nil || obj == nil {
		return nil, "the raw JSON (advanced) is not one JSON object" + jsonProblem(err)
	}
	if !sameJSON(string(fields), base) && !sameJSON(string(fields), raw) {
		return nil, "both the fields and the raw JSON (advanced) were edited; keep the edit in one of them"
	}
	return json.RawMessage(raw), ""
}

// fieldArgs builds the arguments from the form's fields; an optional field
// left empty is left out, unless the proposal had it.
func fieldArgs(form url.Values, base string) (json.RawMessage, string) {
	var had map[string]json.RawMessage
	_ = json.Unmarshal([]byte(base), &had)
	args := map[string]json.RawMessage{}
	keys := make([]string, 0, len(form))
	for k := range form {
		if strings.HasPrefix(k, argField) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var problems []string
	for _, k := range keys {
		kind, name, ok := strings.Cut(strings.TrimPrefix(k, argField), ".")
		if !ok || name == "" {
			continue
		}
		v := form[k][len(form[k])-1]
		_, wasThere := had[name]
		if !wasThere && (strings.TrimSpace(v) == "" && kind != fieldBool || kind == fieldBool && v != "true") {
			continue // an optional argument the proposal left out, left out
		}
		value, problem := fieldValue(kind, name, v)
		if problem != "" {
			problems = append(problems, problem)
			continue
		}
		args[name] = value
	}
	if len(problems) > 0 {
		return nil, strings.Join(problems, "; ")
	}
	out, err := json.Marshal(args)
	if err != nil {
		return nil, "the fields could not be read"
	}
	return out, ""
}

func fieldValue(kind, name, v string) (json.RawMessage, string) {
	quoted := strconv.Quote(name)
	switch kind {
	case fieldText, fieldLine, fieldEnum:
		// A text area posts CRLF line ends; the proposal has LF.
		out, _ := json.Marshal(strings.ReplaceAll(v, "\r\n", "\n"))
		return out, ""
	case fieldInteger:
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return nil, fmt.Sprintf("%s must be a whole number, not %s", quoted, strconv.Quote(clip(v, 40)))
		}
		return json.RawMessage(strconv.FormatInt(n, 10)), ""
	case fieldNumber:
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return nil, fmt.Sprintf("%s must be a number, not %s", quoted, strconv.Quote(clip(v, 40)))
		}
		out, _ := json.Marshal(f)
		return out, ""
	case fieldBool:
		return json.RawMessage(strconv.FormatBool(v == "true")), ""
	case fieldJSON:
		var x any
		if err := json.Unmarshal([]byte(v), &x); err != nil {
			return nil, fmt.Sprintf("%s is not valid JSON%s", quoted, jsonProblem(err))
		}
		out, _ := json.Marshal(x)
		return out, ""
	}
	return nil, fmt.Sprintf("%s has an unknown kind of field", quoted)
}

func jsonProblem(err error) string {
	if err == nil {
		return ""
	}
	return " (" + clip(err.Error(), 120) + ")"
}
