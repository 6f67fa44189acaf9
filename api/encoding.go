package api

// ConversationEncoding remembers the canonical JSON of each message it has
// encoded, so that a run which calls the model after every turn encodes
// each message once, not the whole conversation on every call (the
// workflow's share of CanonicalConversation was 4% of the bench's CPU); the
// activities' conversation cache keeps one per run for the same reason. It
// relies on the conversation only growing at its end; the zero value is
// ready, and a run restored from a checkpoint starts with an empty one.
type ConversationEncoding struct {
	parts [][]byte
}

// Canonical is CanonicalConversation(messages): encoding/json writes a
// slice as its elements' own encodings between brackets, one comma apart.
func (e *ConversationEncoding) Canonical(messages []Message) ([]byte, error) {
	if len(messages) == 0 {
		return CanonicalConversation(messages) // null or [], as that says
	}
	if len(e.parts) > len(messages) {
		e.parts = nil
	}
	size := 2
	for i := range messages {
		if i >= len(e.parts) {
			part, err := CanonicalConversation(messages[i : i+1])
			if err != nil {
				return nil, err
			}
			// Drop the one-element list's brackets.
			e.parts = append(e.parts, part[1:len(part)-1])
		}
		size += len(e.parts[i]) + 1
	}
	out := make([]byte, 0, size)
	out = append(out, '[')
	for i, part := range e.parts[:len(messages)] {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, part...)
	}
	return append(out, ']'), nil
}
