// Package mcptool turns the tools of MCP (Model Context Protocol) servers into
// agentrun tools, over stdio or streamable HTTP.
//
// A worker connects once per server (Connect), lists its tools once (the
// list is what every Spec says for the worker's life; a server that changes
// its tools needs a worker restart) and registers what Tools returns.
//
// Trust: a tool's annotations (readOnlyHint, idempotentHint) are the server's
// word, and they decide whether a call is a read, an action reconciled by
// repeating it, or an action an operator must resolve. A server that calls a
// destructive tool read-only lies, and agentrun cannot tell: the agent's
// configuration decides which MCP servers are trusted to say so. A missing
// annotation is never read as read-only or idempotent.
//
// A result the server marks isError fails the step as tools.Rejected, with
// the server's text for the model: the server answered, so it is not an
// unknown outcome. A transport failure is: the next call reconnects, and an
// action's step reconciles first.
package mcptool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Server says how to reach one MCP server: Command (stdio) or URL
// (streamable HTTP), never both. Its JSON form is what a worker's
// configuration lists.
type Server struct {
	// Name prefixes the server's tool names (<name>__<tool>) and names what
	// its actions touch (mcp:<name>): lower case letters and digits, single
	// underscores between them.
	Name string `json:"name"`
	// Command runs a stdio server: the program and its arguments.
	Command []string `json:"command,omitempty"`
	// Env is the stdio server's whole environment ("KEY=value"), with the
	// BaseEnv entries it sets none of: the worker's own secrets (GitHub
	// token, model keys) never reach a server by accident.
	Env []string `json:"env,omitempty"`
	// User, when set, starts the stdio server as this user (a name, or a
	// numeric uid) with its primary group and no supplementary groups, so
	// that it cannot read the worker's files or /proc entries. The worker
	// needs the right to (root, or CAP_SETUID and CAP_SETGID); without it,
	// or for an unknown user, Connect fails.
	User string `json:"user,omitempty"`
	// BaseEnv is what the worker hands every stdio server ("PATH=...",
	// "HOME=..."), from its own settings; no variable is read here.
	BaseEnv []string `json:"-"`
	// Stderr receives a stdio server's standard error; nil discards it.
	Stderr io.Writer `json:"-"`
	// URL is a streamable HTTP server's endpoint.
	URL string `json:"url,omitempty"`
	// Headers are sent with every HTTP request (an Authorization header, for
	// example).
	Headers map[string]string `json:"headers,omitempty"`
}

// serverName keeps "__" the one separator between server and tool names.
var serverName = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// maxServerName leaves most of a 64-character tool name to the tool.
const maxServerName = 24

func (s Server) validate() error {
	if !serverName.MatchString(s.Name) || len(s.Name) > maxServerName {
		return fmt.Errorf("MCP server name %q: want at most %d lower case letters and digits, single _ between them", s.Name, maxServerName)
	}
	switch {
	case len(s.Command) > 0 && s.URL != "":
		return fmt.Errorf("MCP server %s: set Command or URL, not both", s.Name)
	case len(s.Command) > 0:
		if len(s.Headers) > 0 {
			return fmt.Errorf("MCP server %s: Headers are for an HTTP server", s.Name)
		}
		return nil
	case s.URL != "":
		u, err := url.Parse(s.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("MCP server %s: URL %q is not an http(s) URL", s.Name, s.URL)
		}
		if len(s.Env) > 0 {
			return fmt.Errorf("MCP server %s: Env is for a stdio server", s.Name)
		}
		if s.User != "" {
			return fmt.Errorf("MCP server %s: User is for a stdio server", s.Name)
		}
		for k := range s.Headers {
			// Go's transport would take a POST carrying one for replayable
			// and send a call again by itself after a lost answer.
			if c := http.CanonicalHeaderKey(k); c == "Idempotency-Key" || c == "X-Idempotency-Key" {
				return fmt.Errorf("MCP server %s: Headers may not set %s", s.Name, c)
			}
		}
		return nil
	default:
		return fmt.Errorf("MCP server %s: set Command (stdio) or URL (streamable HTTP)", s.Name)
	}
}

// Conn is one worker's connection to one MCP server. It reconnects on the
// next call after the server went away; calls may run concurrently.
type Conn struct {
	server Server
	client *mcp.Client
	// listed is the server's tool list at Connect, by MCP name.
	listed []*mcp.Tool
	// runAs is the stdio server's user, when it is not the worker's.
	runAs *syscall.Credential

	// dial is held while one call reconnects, so that concurrent calls
	// share its session; a channel, so that a waiting call keeps its own
	// deadline.
	dial chan struct{}

	mu      sync.Mutex
	session *mcp.ClientSession // nil until the next call reconnects
	closed  bool
}

var errClosed = errors.New("connection closed by the worker")

// maxTools bounds a server's list, which it pages through as long as it
// likes: more tools than this is no agent's tool set.
const maxTools = 256

// Connect starts (stdio) or reaches (HTTP) the server and lists its tools.
func Connect(ctx context.Context, s Server) (*Conn, error) {
	if err := s.validate(); err != nil {
		return nil, err
	}
	runAs, err := s.runAs()
	if err != nil {
		return nil, err
	}
	c := &Conn{server: s, client: mcp.NewClient(&mcp.Implementation{Name: "agentrun", Version: "1"}, nil),
		dial: make(chan struct{}, 1), runAs: runAs}
	session, err := c.live(ctx)
	if err != nil {
		return nil, err
	}
	for t, err := range session.Tools(ctx, nil) {
		if err != nil {
			_ = c.Close()
			return nil, fmt.Errorf("list the tools of MCP server %s: %w", s.Name, err)
		}
		if len(c.listed) == maxTools {
			_ = c.Close()
			return nil, fmt.Errorf("MCP server %s lists more than %d tools", s.Name, maxTools)
		}
		c.listed = append(c.listed, t)
	}
	sort.Slice(c.listed, func(i, j int) bool { return c.listed[i].Name < c.listed[j].Name })
	return c, nil
}

// Close ends the session (a stdio server's process with it).
func (c *Conn) Close() error {
	c.mu.Lock()
	session := c.session
	c.session, c.closed = nil, true
	c.mu.Unlock()
	if session == nil {
		return nil
	}
	return session.Close()
}

// live is the current session, or a new one when the last went away.
func (c *Conn) live(ctx context.Context) (*mcp.ClientSession, error) {
	if session, err := c.current(); session != nil || err != nil {
		return session, err
	}
	select {
	case c.dial <- struct{}{}:
		defer func() { <-c.dial }()
	case <-ctx.Done():
		return nil, fmt.Errorf("connect to MCP server %s: %w", c.server.Name, ctx.Err())
	}
	if session, err := c.current(); session != nil || err != nil {
		return session, err // another call reconnected meanwhile
	}
	session, err := c.client.Connect(ctx, c.transport(), nil)
	if err != nil {
		return nil, fmt.Errorf("connect to MCP server %s: %w", c.server.Name, err)
	}
	c.mu.Lock()
	closed := c.closed
	if !closed {
		c.session = session
	}
	c.mu.Unlock()
	if closed {
		_ = session.Close()
		return nil, errClosed
	}
	go c.forgetWhenDone(session)
	return session, nil
}

func (c *Conn) current() (*mcp.ClientSession, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errClosed
	}
	return c.session, nil
}

// forgetWhenDone drops a session the server closed (a stdio server that
// exited), so that the next call reconnects instead of failing.
func (c *Conn) forgetWhenDone(session *mcp.ClientSession) {
	_ = session.Wait()
	c.forget(session)
}

func (c *Conn) forget(session *mcp.ClientSession) {
	c.mu.Lock()
	if c.session == session {
		c.session = nil
	}
	c.mu.Unlock()
}

func (c *Conn) transport() mcp.Transport {
	s := c.server
	if s.URL != "" {
		return &mcp.StreamableClientTransport{
			Endpoint: s.URL,
			HTTPClient: &http.Client{
				Transport: headerTransport{headers: s.Headers, next: http.DefaultTransport},
				// The headers go with every request the transport makes: a
				// redirect would hand them to whatever host it names.
				CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
			},
			// A call's outcome is the activity's to judge: the transport
			// does not retry behind its back.
			MaxRetries:           -1,
			DisableStandaloneSSE: true,
		}
	}
	// Not exec.CommandContext: the server outlives the call that started it.
	cmd := exec.Command(s.Command[0], s.Command[1:]...)
	cmd.Env = childEnv(s.Env, s.BaseEnv)
	cmd.Stderr = s.Stderr
	if c.runAs != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.runAs}
	}
	return &mcp.CommandTransport{Command: cmd}
}

func childEnv(env, base []string) []string {
	out := append([]string{}, env...)
	for _, kv := range base {
		if k, _, ok := strings.Cut(kv, "="); ok && !hasKey(env, k) {
			out = append(out, kv)
		}
	}
	return out
}

func hasKey(env []string, key string) bool {
	for _, kv := range env {
		if len(kv) > len(key) && kv[:len(key)+1] == key+"=" {
			return true
		}
	}
	return false
}

type headerTransport struct {
	headers map[string]string
	next    http.RoundTripper
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(h.headers) > 0 {
		r = r.Clone(r.Context())
		for k, v := range h.headers {
			r.Header.Set(k, v)
		}
	}
	resp, err := h.next.RoundTrip(r)
	if own, ok := r.Context().Value(sentRequestKey{}).(*sentRequest); ok && err == nil && resp.StatusCode == http.StatusNotFound {
		own.notFound.Store(true)
	}
	return resp, err
}

// metaOperationKey carries a step's operationKey in a call's _meta, so that
// a server may recognize a repeat of the same step.
const metaOperationKey = "agentrun/operationKey"

// call calls one of the server's tools. An error is the transport's (the
// server's answer, isError included, is the result). A read is made again on
// a new session whenever its session went missing; an action only when the
// 404 answered its own request, which proves that no server ran it.
func (c *Conn) call(ctx context.Context, tool string, args json.RawMessage, operationKey string, read bool) (*mcp.CallToolResult, error) {
	params := &mcp.CallToolParams{Name: tool, Arguments: args}
	if operationKey != "" {
		params.Meta = mcp.Meta{metaOperationKey: operationKey}
	}
	res, own, err := c.callOnce(ctx, params)
	if errors.Is(err, mcp.ErrSessionMissing) && (read || own.sessionMissing()) {
		// The server answered 404 to this request for a session it no longer
		// knows (it restarted, or it is another replica): it ran nothing.
		res, _, err = c.callOnce(ctx, params)
	} else if errors.Is(err, mcp.ErrSessionMissing) {
		// The go-sdk retires every call in flight when one request meets a
		// 404. This call's request was sent and may be running on the replica
		// that knows the session: its outcome is unknown.
		err = fmt.Errorf("the session was lost while the call was in flight, so it may have run: %w", err)
	}
	if err != nil {
		return nil, fmt.Errorf("call %s.%s: %w", c.server.Name, tool, err)
	}
	return res, nil
}

// sentRequest is what the transport saw of one call's own HTTP request; the
// call's context carries it to the transport.
type sentRequest struct{ notFound atomic.Bool }

type sentRequestKey struct{}

func (s *sentRequest) sessionMissing() bool { return s != nil && s.notFound.Load() }

func (c *Conn) callOnce(ctx context.Context, params *mcp.CallToolParams) (*mcp.CallToolResult, *sentRequest, error) {
	session, err := c.live(ctx)
	if err != nil {
		return nil, nil, err
	}
	// Only the call's own POST is made with this context: the go-sdk sends
	// each message under the context of the call that sends it.
	own := &sentRequest{}
	res, err := session.CallTool(context.WithValue(ctx, sentRequestKey{}, own), params)
	var answered *jsonrpc.Error
	if err != nil && !errors.As(err, &answered) && ctx.Err() == nil {
		// Not the server's answer, nor the caller's deadline: the session is
		// broken, and the next call starts a new one.
		c.forget(session)
		go func() { _ = session.Close() }()
	}
	return res, own, err
}
