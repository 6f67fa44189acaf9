// Command chatworker is the agentrun worker with an announce agent that
// sends one message, the run's goal, to a chat channel of the service at
// CHAT_URL, approved by a person; a scripted model drives it.
package main

import (
	"net/http"
	"time"

	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/agentworker"
	"github.com/agentrun/agentrun/examples/chattool/chat"
	"github.com/agentrun/agentrun/model"
	"github.com/agentrun/agentrun/model/scripted"
	"github.com/agentrun/agentrun/tools"
	"github.com/agentrun/agentrun/tools/toolhttp"
)

func main() { agentworker.Main(options) }

var options = agentworker.Options{
	Program:  "chatworker",
	Settings: []agentworker.Setting{{Name: "CHAT_URL", Description: "the chat service", Required: true}},
	Extend: func(h agentworker.Host) ([]agents.Extension, error) {
		send := chat.SendMessage{Client: toolhttp.Client{BaseURL: h.Getenv("CHAT_URL"), HTTP: &http.Client{Timeout: 20 * time.Second}}}
		return []agents.Extension{{Tools: []agents.ExtraTool{{Tool: send, Gate: tools.AlwaysAsk}},
			Agents: []tools.Agent{chat.Announce}}}, nil
	},
	Model: func(provider model.Model) model.Model {
		return scripted.Model{Scripts: []scripted.Script{scripted.Then("send_message", "text")}, Otherwise: provider}
	},
}
