package standalone

import (
	"encoding/json"
	"fmt"
	"net/http"
	"unicode/utf8"
)

// Stream scripts a streamed answer: the chunks in order, then [DONE].
type Stream struct {
	// Chunks are the chat.completion.chunk objects, as JSON.
	Chunks []string
	// Before, when set, runs before chunk i is sent (and with i ==
	// len(Chunks) before [DONE]), so that a test holds the stream mid-way
	// on a channel of its own instead of sleeping.
	Before func(i int)
}

// pieceBytes is how much text one chunk of a cut completion carries: small,
// so that every recorded answer arrives in several pieces.
const pieceBytes = 7

func streamed(body []byte) bool {
	var req struct {
		Stream bool `json:"stream"`
	}
	return json.Unmarshal(body, &req) == nil && req.Stream
}

func (s *Server) serveStream(w http.ResponseWriter, r *http.Request, next Reply, payload []byte) {
	stream := next.Stream
	if stream == nil {
		chunks, err := ChunksOf(payload)
		if err != nil {
			s.t.Errorf("openaifake: cut the recorded completion into chunks: %v", err)
			http.Error(w, `{"error":{"message":"bad fixture"}}`, http.StatusTeapot)
			return
		}
		stream = &Stream{Chunks: chunks}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for k, v := range next.Header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	for i := 0; i <= len(stream.Chunks); i++ {
		if stream.Before != nil {
			stream.Before(i)
		}
		if r.Context().Err() != nil {
			return
		}
		data := "[DONE]"
		if i < len(stream.Chunks) {
			data = stream.Chunks[i]
		}
		if _, err := fmt.Fprintf(w, "data: %s\n\n", data); err != nil {
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
	}
}

// completion is the part of a recorded chat completion that ChunksOf cuts.
type completion struct {
	ID                string          `json:"id"`
	Created           int64           `json:"created"`
	Model             string          `json:"model"`
	SystemFingerprint string          `json:"system_fingerprint,omitempty"`
	Usage             json.RawMessage `json:"usage,omitempty"`
	Choices           []struct {
		Index        int    `json:"index"`
		FinishReason string `json:"finish_reason"`
		Message      struct {
			Content   *string `json:"content"`
			Refusal   *string `json:"refusal"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
	} `json:"choices"`
}

// ChunksOf cuts a recorded chat completion into the chunks OpenAI would
// stream for it: the role, the content and refusal a few bytes at a time,
// each tool call's ID and name and then its arguments in pieces, the finish
// reason, and the usage last.
func ChunksOf(recorded []byte) ([]string, error) {
	var c completion
	if err := json.Unmarshal(recorded, &c); err != nil {
		return nil, fmt.Errorf("decode the recorded completion: %w", err)
	}
	head := Chunk{ID: c.ID, Created: c.Created, Model: c.Model, SystemFingerprint: c.SystemFingerprint}
	var chunks []string
	add := func(choice int, delta map[string]any, finish string) {
		chunks = append(chunks, head.with(choice, delta, finish))
	}
	for _, choice := range c.Choices {
		add(choice.Index, map[string]any{"role": "assistant", "content": ""}, "")
		msg := choice.Message
		if msg.Content != nil {
			for _, piece := range pieces(*msg.Content) {
				add(choice.Index, map[string]any{"content": piece}, "")
			}
		}
		if msg.Refusal != nil {
			for _, piece := range pieces(*msg.Refusal) {
				add(choice.Index, map[string]any{"refusal": piece}, "")
			}
		}
		for i, call := range msg.ToolCalls {
			add(choice.Index, toolCallDelta(i, map[string]any{
				"id": call.ID, "type": call.Type, "function": map[string]any{"name": call.Function.Name, "arguments": ""},
			}), "")
			for _, piece := range pieces(call.Function.Arguments) {
				add(choice.Index, toolCallDelta(i, map[string]any{"function": map[string]any{"arguments": piece}}), "")
			}
		}
		add(choice.Index, map[string]any{}, choice.FinishReason)
	}
	if len(c.Usage) > 0 && string(c.Usage) != "null" {
		chunks = append(chunks, head.usage(c.Usage))
	}
	return chunks, nil
}

func toolCallDelta(index int, call map[string]any) map[string]any {
	call["index"] = index
	return map[string]any{"tool_calls": []any{call}}
}

// pieces cuts text into pieces of about pieceBytes, on rune boundaries.
func pieces(text string) []string {
	var out []string
	for len(text) > 0 {
		n := min(pieceBytes, len(text))
		for n < len(text) && !utf8.RuneStart(text[n]) {
			n++
		}
		out = append(out, text[:n])
		text = text[n:]
	}
	return out
}

// Chunk is the head every chunk of one streamed completion shares; its
// methods write the chunks of a scripted Stream.
type Chunk struct {
	ID                string
	Created           int64
	Model             string
	SystemFingerprint string
}

// Content is a chunk carrying text of the first choice.
func (h Chunk) Content(text string) string {
	return h.with(0, map[string]any{"content": text}, "")
}

// ToolCall is a chunk starting tool call index of the first choice.
func (h Chunk) ToolCall(index int, id, name, arguments string) string {
	return h.with(0, toolCallDelta(index, map[string]any{
		"id": id, "type": "function", "function": map[string]any{"name": name, "arguments": arguments},
	}), "")
}

// Finish is the chunk ending the first choice with reason.
func (h Chunk) Finish(reason string) string {
	return h.with(0, map[string]any{}, reason)
}

func (h Chunk) with(choice int, delta map[string]any, finish string) string {
	c := h.object()
	entry := map[string]any{"index": choice, "delta": delta, "finish_reason": nil}
	if finish != "" {
		entry["finish_reason"] = finish
	}
	c["choices"] = []any{entry}
	return encode(c)
}

func (h Chunk) usage(usage json.RawMessage) string {
	c := h.object()
	c["choices"] = []any{}
	c["usage"] = usage
	return encode(c)
}

func (h Chunk) object() map[string]any {
	c := map[string]any{"id": h.ID, "object": "chat.completion.chunk", "created": h.Created, "model": h.Model}
	if h.SystemFingerprint != "" {
		c["system_fingerprint"] = h.SystemFingerprint
	}
	return c
}

func encode(v map[string]any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("openaifake: encode a chunk: %v", err)) // maps of strings and numbers always encode
	}
	return string(raw)
}
