// This file makes an action's preview readable beside the exact bytes that
// are approved, in the way its tool says (api.PreviewKind): Markdown
// rendered as the target shows it, an HTTP request as its method, URL and
// pretty-printed body, and structured data with its lists of records as
// tables (the recommender's picks). The raw preview stays what is approved;
// this is only how it reads.

package approvalsrv

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"html/template"
	"net/url"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentrun/agentrun/api"
)

// readableView is a preview as people read it.
type readableView struct {
	Kind api.PreviewKind
	// Markdown is the rendered body of a PreviewMarkdown.
	Markdown template.HTML
	// Method and URL are a PreviewHTTP's request line; Body its body,
	// pretty-printed, or "" for none.
	Method, URL string
	Body        string
	// HasBody is whether the request has a body, shown or not (the
	// inbox's excerpt leaves it out).
	HasBody bool
	// Tables are the body's records and plain objects, as tables.
	Tables []dataTable
}

// dataTable is one list of records (or one object) of a structured
// preview. Path names where it is in the body: "picks", "request".
type dataTable struct {
	Path    string
	Columns []string
	Rows    [][]string
	// Records is a list of records (a row each), not one object's fields.
	Records bool
	// Note says what the table leaves out of the body, as words.
	Note string
}

// Bounds on what a structured preview shows as tables.
const (
	maxTables     = 6
	maxTableRows  = 50
	maxTableCols  = 10
	maxCellLength = 160
)

// previewKindOf is the kind an action's preview reads as: its tool's, or,
// for an action from before kinds (and the inbox's, which carries none),
// Markdown for GitHub's text actions and HTTP for a request line.
func previewKindOf(kind api.PreviewKind, tool, preview string) api.PreviewKind {
	if kind != "" {
		return kind
	}
	if _, ok := markdownBody(tool, preview); ok {
		return api.PreviewMarkdown
	}
	if _, _, _, ok := requestLine(preview); ok {
		return api.PreviewHTTP
	}
	return api.PreviewText
}

// readable is action a's preview as people read it, or nil when the raw
// text is all there is.
func readable(a api.PendingAction) *readableView {
	return readablePreview(previewKindOf(a.PreviewKind, a.ToolName, a.Preview), a.ToolName, a.Preview)
}

func readablePreview(kind api.PreviewKind, tool, preview string) *readableView {
	v := &readableView{Kind: kind}
	switch kind {
	case api.PreviewMarkdown:
		body, ok := markdownBody(tool, preview)
		if !ok {
			body = preview
		}
		if v.Markdown = renderMarkdown(body); v.Markdown == "" {
			return nil
		}
	case api.PreviewHTTP:
		method, target, body, ok := requestLine(preview)
		if !ok {
			return nil
		}
		v.Method, v.URL = method, target
		v.Body, v.Tables = structured(body)
		v.HasBody = v.Body != ""
	case api.PreviewJSON:
		v.Body, v.Tables = structured(preview)
		if v.Body == "" {
			return nil
		}
	default:
		return nil
	}
	return v
}

// requestLine reads "METHOD URL\nbody" (httptool's preview): a method in
// capitals and an absolute http(s) URL; "(no body)" is no body.
func requestLine(preview string) (method, target, body string, ok bool) {
	line, body, _ := strings.Cut(preview, "\n")
	method, target, ok = strings.Cut(line, " ")
	if !ok || method == "" || strings.ToUpper(method) != method || strings.ContainsAny(method, " \t") {
		return "", "", "", false
	}
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", "", "", false
	}
	if body == "(no body)" {
		body = ""
	}
	return method, target, body, true
}

// structured is a JSON body pretty-printed, with its lists of records and
// its objects of plain values as tables; a body that is not JSON is shown
// as it is.
func structured(body string) (string, []dataTable) {
	if strings.TrimSpace(body) == "" {
		return "", nil
	}
	var out bytes.Buffer
	if json.Indent(&out, []byte(body), "", "  ") != nil {
		return body, nil
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(body))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return out.String(), nil
	}
	var tables []dataTable
	collectTables(v, "", &tables)
	return out.String(), tables
}

// collectTables finds, depth first in key order, each list of objects
// (one row each) and each object with plain values (one row per key).
func collectTables(v any, path string, tables *[]dataTable) {
	if len(*tables) >= maxTables {
		return
	}
	switch x := v.(type) {
	case []any:
		if t, ok := recordsTable(path, x); ok {
			*tables = append(*tables, t)
			return
		}
		for i, e := range x {
			collectTables(e, fmt.Sprintf("%s[%d]", path, i), tables)
		}
	case map[string]any:
		keys := sortedKeys(x)
		var plain [][]string
		for _, k := range keys {
			if isPlain(x[k]) {
				plain = append(plain, []string{k, cell(x[k])})
			}
		}
		if len(plain) > 0 {
			*tables = append(*tables, dataTable{Path: cmp.Or(path, "body"), Columns: []string{"field", "value"}, Rows: plain})
		}
		for _, k := range keys {
			if !isPlain(x[k]) {
				collectTables(x[k], strings.TrimPrefix(path+"."+k, "."), tables)
			}
		}
	}
}

// recordsTable is a list of objects as a table: the columns are the keys,
// in the order they first appear over sorted keys of each record.
func recordsTable(path string, list []any) (dataTable, bool) {
	if len(list) == 0 {
		return dataTable{}, false
	}
	var columns []string
	seen := map[string]bool{}
	for _, e := range list {
		obj, ok := e.(map[string]any)
		if !ok {
			return dataTable{}, false
		}
		for _, k := range sortedKeys(obj) {
			if !seen[k] && len(columns) < maxTableCols {
				seen[k] = true
				columns = append(columns, k)
			}
		}
	}
	columns = recordColumns(columns)
	t := dataTable{Path: path, Columns: columns}
	for _, e := range list[:min(len(list), maxTableRows)] {
		obj := e.(map[string]any)
		row := make([]string, len(columns))
		for i, c := range columns {
			if val, ok := obj[c]; ok {
				row[i] = cell(val)
			}
		}
		t.Rows = append(t.Rows, row)
	}
	t.Records = true
	dropRepeats(&t)
	return t, true
}

// dropRepeats takes out of each row's free-text column (a reason, a note)
// the comma-separated parts that only restate another column of the same
// row, such as "120 for two" beside price_for_two 120 or "coupon: 20 off"
// beside coupon "20 off"; a part that says anything more stays. A column
// left empty in every row goes, and the note says so: the body beside the
// table still holds every byte.
func dropRepeats(t *dataTable) {
	for col := len(t.Columns) - 1; col >= 0; col-- {
		if !isFreeText(t.Columns[col]) {
			continue
		}
		empty, dropped := true, false
		for _, row := range t.Rows {
			var kept []string
			for _, part := range strings.Split(row[col], ",") {
				if part = strings.TrimSpace(part); part == "" {
					continue
				}
				if restates(part, t.Columns, row, col) {
					dropped = true
					continue
				}
				kept = append(kept, part)
			}
			if row[col] = strings.Join(kept, ", "); row[col] != "" {
				empty = false
			}
		}
		name := t.Columns[col]
		if !dropped {
			continue
		}
		if !empty {
			t.Note = strings.TrimSpace(t.Note + " Parts of " + name + " that repeat another column are left out.")
			continue
		}
		t.Columns = slices.Delete(t.Columns, col, col+1)
		for i := range t.Rows {
			t.Rows[i] = slices.Delete(t.Rows[i], col, col+1)
		}
		t.Note = strings.TrimSpace(t.Note + " Each " + name + " only repeats the other columns, so it is left out.")
	}
}

func isFreeText(column string) bool {
	switch column {
	case "reason", "note", "description":
		return true
	}
	return false
}

// restates reports whether part is another column's value in row, whole
// words, with nothing else than words of that column's name around it
// ("rated 4.6" for rating 4.6, "120 for two" for price_for_two 120).
func restates(part string, columns, row []string, self int) bool {
	lower := strings.ToLower(part)
	for c, value := range row {
		value = strings.ToLower(strings.TrimSpace(value))
		if c == self || value == "" {
			continue
		}
		at := strings.Index(lower, value)
		if at < 0 || wordChar(lower[:at], true) || wordChar(lower[at+len(value):], false) {
			continue
		}
		names := map[string]bool{}
		for _, w := range strings.Split(strings.ToLower(columns[c]), "_") {
			names[stem(w)] = true
		}
		rest := strings.FieldsFunc(lower[:at]+" "+lower[at+len(value):], func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		if !slices.ContainsFunc(rest, func(w string) bool { return !names[stem(w)] }) {
			return true
		}
	}
	return false
}

// wordChar reports whether s ends (last) or starts with a letter or digit:
// a value found there would be part of a longer word.
func wordChar(s string, last bool) bool {
	if s == "" {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s)
	if last {
		r, _ = utf8.DecodeLastRuneInString(s)
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// stem is a word without its commonest English endings, so "rated" is
// "rating"'s word.
func stem(w string) string {
	for _, end := range []string{"ing", "ed", "s"} {
		if len(w) > len(end)+2 {
			if cut, ok := strings.CutSuffix(w, end); ok {
				return cut
			}
		}
	}
	return w
}

// recordColumns puts the columns people look for first: a name, then an
// ID, then the rest in key order; a reason or note last.
func recordColumns(columns []string) []string {
	rank := func(c string) int {
		switch c {
		case "name", "title":
			return 0
		case "id":
			return 1
		case "reason", "note", "description":
			return 3
		}
		return 2
	}
	sort.SliceStable(columns, func(i, j int) bool { return rank(columns[i]) < rank(columns[j]) })
	return columns
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func isPlain(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return false
	}
	return true
}

// cell is a value as a table shows it: text as it is, anything else as
// compact JSON, clipped.
func cell(v any) string {
	if s, ok := v.(string); ok {
		return clip(s, maxCellLength)
	}
	if v == nil {
		return "null"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return clip(string(b), maxCellLength)
}

// inboxRows bounds a table's rows in the inbox's excerpt.
const inboxRows = 3

// readableExcerpt is the start of a waiting action's readable preview, for
// the inbox: the first excerptLength characters of Markdown, or a
// request's line and the first rows of its tables.
func readableExcerpt(tool, preview string) *readableView {
	kind := previewKindOf("", tool, preview)
	if kind == api.PreviewMarkdown {
		body, ok := markdownBody(tool, preview)
		if !ok {
			body = preview
		}
		if html := renderMarkdown(clip(body, excerptLength)); html != "" {
			return &readableView{Kind: kind, Markdown: html}
		}
		return nil
	}
	v := readablePreview(kind, tool, preview)
	if v == nil {
		return nil
	}
	v.Body = ""
	for i := range v.Tables {
		v.Tables[i].Rows = v.Tables[i].Rows[:min(len(v.Tables[i].Rows), inboxRows)]
	}
	return v
}
