package openai

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/agentrun/agentrun/api"
)

// Model is a Model backed by the chat-completions API of OpenAI or of
// any compatible server (Ollama, vLLM, LM Studio, a gateway). It calls the API
// exactly once per Next: Temporal owns the retries, so that a Retry-After
// wait is durable and visible in the run's history.
type Model struct {
	completions oai.ChatCompletionService
	model       string
	// apiKey is kept only to scrub it from the provider's error messages.
	apiKey string
	// wholeOnly is set once the server answered a streamed request with no
	// event at all: it does not stream, so Stream asks it whole from then on.
	wholeOnly atomic.Bool
}

// New validates cfg and returns the model it describes.
func New(cfg Config) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	httpClient := cfg.HTTPClient
	if httpClient == nil {
		httpClient = &http.Client{}
	}
	opts := []option.RequestOption{
		option.WithBaseURL(cfg.BaseURL),
		option.WithAPIKey(cfg.APIKey),
		option.WithHTTPClient(httpClient),
		option.WithMaxRetries(0),
	}
	if cfg.Organization != "" {
		opts = append(opts, option.WithOrganization(cfg.Organization))
	}
	// The service is built from our options alone: openai-go's NewClient would also
	// read OPENAI_* variables (project, custom headers...) on its own, and the
	// configuration must come from Config only.
	return &Model{
		completions: oai.NewChatCompletionService(opts...),
		model:       cfg.Model,
		apiKey:      cfg.APIKey,
	}, nil
}

// Next sends the conversation and the offered tools, and maps the answer onto
// a Decision: tool calls with their arguments as the model wrote them, or the
// final text, with the token usage.
func (m *Model) Next(ctx context.Context, conversation []api.Message, tools []api.ToolSpec) (api.ModelDecision, error) {
	params, err := chatRequest(m.model, conversation, tools)
	if err != nil {
		return api.ModelDecision{}, err
	}
	var resp *http.Response
	completion, err := m.completions.New(ctx, params, option.WithResponseInto(&resp))
	if err != nil {
		return api.ModelDecision{}, chatCompletionError(err, resp, m.apiKey)
	}
	d, err := decisionFrom(completion, m.model, len(conversation))
	if err != nil {
		return api.ModelDecision{}, fmt.Errorf("model %s: %w", m.model, err)
	}
	return d, nil
}
