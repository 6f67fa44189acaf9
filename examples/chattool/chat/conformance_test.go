package chat_test

import (
	"flag"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/agentrun/agentrun/examples/chattool/chat"
	"github.com/agentrun/agentrun/tools"
	"github.com/agentrun/agentrun/tools/toolhttp"
	"github.com/agentrun/agentrun/tooltest"
)

// fakeChat is the chat service behind the kit's fault proxy; its effects
// are the messages on the kit's channel.
type fakeChat struct {
	*tooltest.Proxy
	svc *service
}

func (f fakeChat) Effects() int { return len(f.svc.messages("releases")) }

func TestSendMessagePassesTheConformanceKit(t *testing.T) {
	results := tooltest.Run(t, tooltest.Kit{
		Target: releases,
		Args:   `{"text":"Version 2.4 is out"}`,
		Edited: `{"text":"Version 2.4.1 is out"}`,
		New: func(t testing.TB) (tools.Action, tooltest.Fake) {
			svc := newService(time.Now)
			srv := httptest.NewServer(svc)
			t.Cleanup(srv.Close)
			fake := fakeChat{Proxy: tooltest.NewProxy(t, srv.URL), svc: svc}
			return chat.SendMessage{Client: toolhttp.Client{BaseURL: fake.URL}}, fake
		},
	})
	tooltest.KeepTable(t, "../../../docs/tools.md", "chat",
		tooltest.Table([]tooltest.Row{{Action: "`send_message` (examples/chattool/chat)", Results: results}}),
		"go test -C examples/chattool ./chat -run TestSendMessagePassesTheConformanceKit -update", *update)
}

var update = flag.Bool("update", false, "rewrite the chat example's row of docs/tools.md's conformance table")
