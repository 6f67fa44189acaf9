package openai

import (
	"bytes"
	"encoding/json"
	"fmt"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"
	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/api"
)

// chatRequest maps our conversation and tools onto a chat-completions request,
// one message for one message. Only the tools given are offered: a tool the
// run does not allow never reaches the model.
func chatRequest(model string, conversation []api.Message, tools []api.ToolSpec) (oai.ChatCompletionNewParams, error) {
	messages := make([]oai.ChatCompletionMessageParamUnion, 0, len(conversation))
	for i, msg := range conversation {
		m, err := chatMessage(msg)
		if err != nil {
			return oai.ChatCompletionNewParams{}, invalidRequest(fmt.Errorf("conversation message %d: %w", i, err))
		}
		messages = append(messages, m)
	}
	functions, err := functionTools(tools)
	if err != nil {
		return oai.ChatCompletionNewParams{}, invalidRequest(err)
	}
	return oai.ChatCompletionNewParams{Model: model, Messages: messages, Tools: functions}, nil
}

// invalidRequest marks a request we built wrong: no retry can fix it.
func invalidRequest(err error) error {
	return temporal.NewNonRetryableApplicationError("openai chat request: "+err.Error(), api.ErrTypeInvalidInput, nil)
}

func chatMessage(msg api.Message) (oai.ChatCompletionMessageParamUnion, error) {
	switch msg.Role {
	case api.RoleSystem:
		return oai.SystemMessage(msg.Content), nil
	case api.RoleUser:
		return oai.UserMessage(msg.Content), nil
	case api.RoleAssistant:
		return assistantMessage(msg), nil
	case api.RoleTool:
		// Chat completions know a tool result by its call ID alone; Name is ours.
		return oai.ToolMessage(msg.Content, msg.ToolCallID), nil
	default:
		return oai.ChatCompletionMessageParamUnion{}, fmt.Errorf("unknown role %q", msg.Role)
	}
}

func assistantMessage(msg api.Message) oai.ChatCompletionMessageParamUnion {
	var assistant oai.ChatCompletionAssistantMessageParam
	// A turn with tool calls and no text must send no content at all, as the
	// API's own responses do.
	if msg.Content != "" || len(msg.ToolCalls) == 0 {
		assistant.Content.OfString = oai.String(msg.Content)
	}
	for _, call := range msg.ToolCalls {
		assistant.ToolCalls = append(assistant.ToolCalls, oai.ChatCompletionMessageToolCallUnionParam{
			OfFunction: &oai.ChatCompletionMessageFunctionToolCallParam{
				ID: call.ID,
				Function: oai.ChatCompletionMessageFunctionToolCallFunctionParam{
					Name:      call.Name,
					Arguments: argumentsText(call.Arguments),
				},
			},
		})
	}
	return oai.ChatCompletionMessageParamUnion{OfAssistant: &assistant}
}

func functionTools(tools []api.ToolSpec) ([]oai.ChatCompletionToolUnionParam, error) {
	var functions []oai.ChatCompletionToolUnionParam
	for _, tool := range tools {
		fn := shared.FunctionDefinitionParam{Name: tool.Name}
		if tool.Description != "" {
			fn.Description = oai.String(tool.Description)
		}
		if len(bytes.TrimSpace(tool.Parameters)) > 0 {
			if err := json.Unmarshal(tool.Parameters, &fn.Parameters); err != nil {
				return nil, fmt.Errorf("JSON schema of tool %s: %w", tool.Name, err)
			}
		}
		functions = append(functions, oai.ChatCompletionFunctionTool(fn))
	}
	return functions, nil
}

// decisionFrom maps the first choice of a completion onto a Decision. turn
// (the conversation length) makes up IDs for calls a compatible server sent
// without one, unique within the run.
func decisionFrom(completion *oai.ChatCompletion, configuredModel string, turn int) (api.ModelDecision, error) {
	if completion == nil || len(completion.Choices) == 0 {
		return api.ModelDecision{}, fmt.Errorf("openai chat completion: the response has no choices")
	}
	msg := completion.Choices[0].Message
	d := api.ModelDecision{
		Final: msg.Content,
		Usage: api.Usage{PromptTokens: completion.Usage.PromptTokens, CompletionTokens: completion.Usage.CompletionTokens},
		Model: completion.Model,
	}
	if d.Model == "" {
		d.Model = configuredModel
	}
	if d.Final == "" && msg.Refusal != "" {
		d.Final = "The model refused: " + msg.Refusal
	}
	for i, call := range msg.ToolCalls {
		d.ToolCalls = append(d.ToolCalls, toolCallFrom(call, turn, i))
	}
	return d, nil
}

func toolCallFrom(call oai.ChatCompletionMessageToolCallUnion, turn, index int) api.ToolCall {
	id := call.ID
	if id == "" {
		id = fmt.Sprintf("call_t%d_%d", turn, index)
	}
	if call.Type == "custom" {
		// We offer function tools only; the workflow refuses this call by name.
		return api.ToolCall{ID: id, Name: call.Custom.Name, Arguments: jsonString(call.Custom.Input)}
	}
	return api.ToolCall{ID: id, Name: call.Function.Name, Arguments: rawArguments(call.Function.Arguments)}
}

// rawArguments keeps the model's arguments as it wrote them. Text that is not
// JSON is carried as a JSON string holding that exact text, because a
// json.RawMessage that is not valid JSON cannot be serialized into history:
// the workflow then rejects it as arguments that are not an object, and tells
// the model.
func rawArguments(text string) json.RawMessage {
	trimmed := bytes.TrimSpace([]byte(text))
	if len(trimmed) == 0 {
		return json.RawMessage(`{}`)
	}
	if json.Valid(trimmed) {
		return json.RawMessage(trimmed)
	}
	return jsonString(text)
}

// jsonString encodes text as a JSON string; invalid UTF-8 becomes U+FFFD.
func jsonString(text string) json.RawMessage {
	quoted, _ := json.Marshal(text) // a string always encodes
	return quoted
}

// argumentsText undoes rawArguments, so that the model sees its own earlier
// arguments again, malformed ones included.
func argumentsText(raw json.RawMessage) string {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 {
		return "{}"
	}
	var text string
	if trimmed[0] == '"' && json.Unmarshal(trimmed, &text) == nil {
		return text
	}
	return string(trimmed)
}
