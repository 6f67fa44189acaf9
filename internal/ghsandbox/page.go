package ghsandbox

import (
	"html/template"
	"net/http"
	"slices"
	"strconv"

	"github.com/agentrun/agentrun/internal/ghmarkdown"
)

// pullPage is the sandbox's stand-in for a pull request's web page, so that
// the html_url of a posted comment leads somewhere during a demo. It shows
// the description and each comment as GitHub does (ghmarkdown): rendered,
// an operation's hidden marker hidden.
var pullPageTemplate = template.Must(template.New("pull").Funcs(template.FuncMap{"markdown": ghmarkdown.Render}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Repo}}#{{.Pull.Number}} {{.Pull.Title}}</title>
<style>body{font-family:sans-serif;max-width:60rem;margin:2rem auto}
article{border:1px solid #ccc;border-radius:6px;margin:1rem 0;padding:0 1rem}
pre{white-space:pre-wrap;background:#f6f8fa;padding:.5rem}
table{border-collapse:collapse}th,td{border:1px solid #d0d7de;padding:.2rem .5rem}
.check{border:1px solid #ccc;border-radius:6px;margin:1rem 0;padding:.5rem 1rem}
.check .state{font-weight:bold}.check .completed-success{color:#1a7f37}.check .completed-failure{color:#cf222e}
.check .completed-neutral{color:#57606a}.check .in_progress,.check .queued{color:#9a6700}
.check button{margin-right:.5rem;padding:.3rem .8rem}.check select{margin-right:1rem}
.pressed{background:#ddf4ff;border:1px solid #54aeff;border-radius:6px;padding:.5rem 1rem}</style></head>
<body>
<h1>{{.Pull.Title}} <small>{{.Repo}}#{{.Pull.Number}}</small></h1>
<p>{{.Pull.Author}} wants to merge {{.Pull.HeadRef}} into {{.Pull.BaseRef}}</p>
<div class="markdown-body">{{markdown .Pull.Body}}</div>
<h2 id="checks">Checks</h2>
{{with .Pressed}}<p class="pressed" role="status">{{.As}} pressed <b>{{.Button}}</b>; {{.Answer}}</p>{{end}}
{{range .Checks}}<section class="check" id="check-run-{{.ID}}"><p><b>{{.Name}}</b>
<span class="state {{.Status}}{{if .Conclusion}}-{{.Conclusion}}{{end}}">{{.Status}}{{if .Conclusion}}: {{.Conclusion}}{{end}}</span>{{with .Output.Title}}: {{.}}{{end}}{{if .DetailsURL}} <a href="{{.DetailsURL}}">Details</a>{{end}}</p>
{{with .Output.Summary}}<div class="markdown-body">{{markdown .}}</div>{{end}}
{{if .Actions}}<form method="post" action="/_sandbox/check-runs/{{$.Owner}}/{{$.Name}}/{{.ID}}/requested-action">
<input type="hidden" name="back" value="{{$.Back}}">
<label>Press as <select name="sender">{{range $.People}}<option value="{{.Login}}"{{if eq .Login $.PressAs}} selected{{end}}>{{.Login}}{{with .Permission}} ({{.}}){{end}}</option>{{end}}</select></label>
{{range .Actions}}<button type="submit" name="identifier" value="{{.Identifier}}" data-identifier="{{.Identifier}}" title="{{.Description}}">{{.Label}}</button>{{end}}
</form>{{end}}
</section>
{{else}}<p>No checks on {{.Pull.HeadSHA}}.</p>{{end}}
<h2>Files</h2>
<ul>{{range .Pull.Files}}<li>{{.Filename}} ({{.Status}})</li>{{end}}</ul>
<h2>Comments</h2>
{{range .Comments}}<article id="issuecomment-{{.ID}}"><p><b>{{.User}}</b> at {{.CreatedAt.Format "2006-01-02 15:04:05Z07:00"}}</p><div class="markdown-body">{{markdown .Body}}</div></article>
{{else}}<p>No comments yet.</p>{{end}}
</body></html>
`))

func (s *Server) servePullPage(w http.ResponseWriter, r *http.Request) {
	number, err := strconv.Atoi(r.PathValue("number"))
	if err != nil {
		http.NotFound(w, r)
		return
	}
	repo, pull, ok := s.lookupPull(r.PathValue("owner"), r.PathValue("repo"), number)
	if !ok {
		http.NotFound(w, r)
		return
	}
	people, pressAs := s.people(repo.owner, repo.name, number)
	q := r.URL.Query()
	var pressed map[string]string
	if q.Get("pressed") != "" {
		pressed = map[string]string{"Button": q.Get("pressed"), "As": q.Get("as"), "Answer": q.Get("answer")}
		if as := q.Get("as"); slices.ContainsFunc(people, func(p Person) bool { return p.Login == as }) {
			pressAs = as // the next press is by the same person unless changed
		}
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	// A failed write means the browser left; there is no one to tell.
	_ = pullPageTemplate.Execute(w, map[string]any{
		"Owner":    repo.owner,
		"Name":     repo.name,
		"Back":     r.URL.Path,
		"People":   people,
		"PressAs":  pressAs,
		"Pressed":  pressed,
		"Repo":     repo.owner + "/" + repo.name,
		"Pull":     pull.FixturePull,
		"Comments": pull.comments,
		"Checks":   s.CheckRuns(repo.owner, repo.name, pull.HeadSHA),
	})
}
