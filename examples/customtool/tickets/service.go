package tickets

import (
	"encoding/json"

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

// output is what the model reads of a ticket, and the step's external ID.
func output(t *ticket, existed bool) api.ToolOutput {
	if t == nil {
		return api.ToolOutput{}
	}
	content, _ := json.Marshal(map[string]any{"ticket": t.ID, "url": t.URL, "alreadyExisted": existed})
	return api.ToolOutput{Content: content, ExternalID: t.ID, URL: t.URL, AlreadyExisted: existed}
}
