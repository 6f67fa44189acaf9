package tickets

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/agentrun/agentrun/api"
)

// ticket is a ticket as the service sends and takes it; ExternalID is the
// natural key create_ticket finds its ticket by.
type ticket struct {
	ID         string `json:"id,omitempty"`
	Title      string `json:"title"`
	Body       string `json:"body"`
	ExternalID string `json:"external_id"`
	URL        string `json:"url,omitempty"`
}

// do sends one request with in as its JSON body (none when nil) and decodes
// a 2xx answer into out. Any other answer is an error, with its status.
func (t Tool) do(ctx context.Context, method, path string, in, out any) (int, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return 0, fmt.Errorf("encode the request: %w", err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, t.BaseURL+path, body)
	if err != nil {
		return 0, fmt.Errorf("%s %s: %w", method, path, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := cmp.Or(t.HTTP, http.DefaultClient).Do(req)
	if err != nil {
		return 0, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return resp.StatusCode, fmt.Errorf("%s %s: the service answered %s", method, path, resp.Status)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(out); err != nil {
		return resp.StatusCode, fmt.Errorf("%s %s: read the answer: %w", method, path, err)
	}
	return resp.StatusCode, nil
}

// output is what the model reads of a ticket, and the step's external ID.
func output(t *ticket, existed bool) api.ToolOutput {
	if t == nil {
		return api.ToolOutput{}
	}
	content, _ := json.Marshal(map[string]any{"ticket": t.ID, "url": t.URL, "alreadyExisted": existed})
	return api.ToolOutput{Content: content, ExternalID: t.ID, URL: t.URL, AlreadyExisted: existed}
}
