package offline

import "strings"

// plainText makes one line of the pull request author's text (the title)
// read in the comment exactly as it was typed, and do nothing else: no link,
// image (a tracking pixel), emphasis, heading, table, HTML, or notification.
// The comment is posted under the bot's name, so what the author types must
// not pass for something the bot says ("**LGTM**", "Approved by ...").
//
//   - Markdown's inline punctuation gets a backslash, which CommonMark renders
//     as the character itself.
//   - "<" becomes "&lt;", not "\<": the posted body must hold no "<!--" that
//     could pass for an operation marker, and CreateIssueComment refuses one.
//   - "@" is followed by a zero-width joiner: GitHub finds mentions in the
//     rendered text, after escapes are gone, so only a character between "@"
//     and the name stops "@org/team" (or an email address) from notifying.
//   - the ":" of "://" and the "." of "www." get a backslash, which keeps
//     GitHub's autolinker from turning a bare URL into a link.
//   - "$" gets a backslash, so that "$x$" and "$$x$$" are not GitHub math
//     (which renders as the author's formula, not the text typed).
//   - "GH-123" gets a zero-width joiner after "GH": GitHub links it to
//     issue 123 in the rendered text, where a backslash is already gone.
func plainText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '<':
			b.WriteString("&lt;")
			continue
		case c == '@':
			b.WriteString("@\u200d")
			continue
		case ghAutolink(s, i):
			b.WriteByte(c)
			b.WriteString("\u200d")
			continue
		case strings.IndexByte("\\`*_[]~|&#$", c) >= 0,
			c == ':' && strings.HasPrefix(s[i+1:], "//"),
			c == '.' && i >= 3 && strings.EqualFold(s[i-3:i], "www"):
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// ghAutolink is true at the "H" of a word "GH-<digit>", in any case.
func ghAutolink(s string, i int) bool {
	return i > 0 && (s[i]|0x20) == 'h' && (s[i-1]|0x20) == 'g' && (i < 2 || !isAlnum(s[i-2])) &&
		i+2 < len(s) && s[i+1] == '-' && isDigit(s[i+2])
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isAlnum(c byte) bool { return isDigit(c) || ('a' <= c|0x20 && c|0x20 <= 'z') }
