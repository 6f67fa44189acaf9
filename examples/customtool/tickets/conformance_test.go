package tickets

import (
	"net/http/httptest"
	"testing"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
	"github.com/agentrun/agentrun/tools/toolhttp"
	"github.com/agentrun/agentrun/tooltest"
)

// tickets is the ticket service behind the kit's fault proxy.
type tickets struct {
	*tooltest.Proxy
	svc *service
}

func (f tickets) Effects() int {
	held, _ := f.svc.held()
	return len(held)
}

func TestCreateTicketPassesTheConformanceKit(t *testing.T) {
	results := tooltest.Run(t, tooltest.Kit{
		Target: api.Target{Kind: "support_queue", Fields: map[string]string{"queue": "support"}},
		Args:   `{"title":"Flaky test","body":"It fails one run in ten."}`,
		Edited: `{"title":"Flaky cache test","body":"It fails one run in ten."}`,
		New: func(t testing.TB) (tools.Action, tooltest.Fake) {
			svc := &service{}
			srv := httptest.NewServer(svc)
			t.Cleanup(srv.Close)
			fake := tickets{Proxy: tooltest.NewProxy(t, srv.URL), svc: svc}
			return Tool{Client: toolhttp.Client{BaseURL: fake.URL}}, fake
		},
	})
	keepTable(t, results)
}
