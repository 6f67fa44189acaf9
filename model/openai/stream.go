package openai

import (
	"context"
	"fmt"
	"net/http"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/agentrun/agentrun/api"
)

// Stream is Next with the answer streamed: writing gets the text written so
// far (content, or a refusal) after every chunk that adds to it, so that
// people can watch the model write. The Decision is the one Next would make
// of the same answer: the chunks are put back together by openai-go's
// accumulator, tool calls included. writing must return quickly; it may be
// nil.
func (m *Model) Stream(ctx context.Context, conversation []api.Message, tools []api.ToolSpec, writing func(text string)) (api.ModelDecision, error) {
	if m.wholeOnly.Load() {
		return m.Next(ctx, conversation, tools)
	}
	params, err := chatRequest(m.model, conversation, tools)
	if err != nil {
		return api.ModelDecision{}, err
	}
	// Without it a streamed answer carries no token usage.
	params.StreamOptions = oai.ChatCompletionStreamOptionsParam{IncludeUsage: oai.Bool(true)}
	var resp *http.Response
	stream := m.completions.NewStreaming(ctx, params, option.WithResponseInto(&resp))
	defer stream.Close()
	var acc oai.ChatCompletionAccumulator
	for stream.Next() {
		if !acc.AddChunk(stream.Current()) {
			// A chunk of another completion, or past the accumulator's
			// bounds: what came so far is not one answer.
			return api.ModelDecision{}, fmt.Errorf("model %s: openai chat completion stream: a chunk does not continue the answer", m.model)
		}
		if writing != nil && len(acc.Choices) > 0 {
			msg := acc.Choices[0].Message
			if text := msg.Content + msg.Refusal; text != "" {
				writing(text)
			}
		}
	}
	if err := stream.Err(); err != nil {
		return api.ModelDecision{}, chatCompletionError(err, resp, m.apiKey)
	}
	if len(acc.Choices) == 0 {
		// An OpenAI-compatible server that does not stream answers with one
		// JSON completion, which the event decoder reads as no event. A model
		// call has no side effect, so it is asked again whole, and that
		// server is asked whole from then on.
		m.wholeOnly.Store(true)
		return m.Next(ctx, conversation, tools)
	}
	d, err := decisionFrom(&acc.ChatCompletion, m.model, len(conversation))
	if err != nil {
		return api.ModelDecision{}, fmt.Errorf("model %s: %w", m.model, err)
	}
	return d, nil
}
