package api

// PreviewKind says how a page shows an action's preview beside the exact
// bytes that are approved. A tool declares it (ToolSpec.PreviewKind); the
// run copies it onto the action (PendingAction.PreviewKind).
type PreviewKind string

// Preview kinds.
const (
	// PreviewText shows the preview as it is, and nothing else.
	PreviewText PreviewKind = ""
	// PreviewMarkdown: the preview (for GitHub's actions, the body in it)
	// is Markdown, shown rendered as the target shows it.
	PreviewMarkdown PreviewKind = "markdown"
	// PreviewHTTP: the preview is a request line ("POST https://…") and
	// then its JSON body, shown as method, URL and the body pretty-printed,
	// with its lists of records as tables.
	PreviewHTTP PreviewKind = "http"
	// PreviewJSON: the preview is JSON, shown pretty-printed, with its
	// lists of records as tables.
	PreviewJSON PreviewKind = "json"
)

// MaxArgsSchemaBytes bounds the argument schema an action carries for its
// edit form (PendingAction.ArgsSchema); a larger one is left out and the
// page offers the raw JSON only.
const MaxArgsSchemaBytes = 8 << 10
