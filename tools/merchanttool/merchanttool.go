// Package merchanttool is the recommend agent's reads of a merchant service
// (the sandbox serves one): search merchants in a city, read their details,
// list their coupons. Each is one GET; the save goes through httptool, the
// action that runs under an Idempotency-Key.
package merchanttool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
)

// The reads' names.
const (
	SearchMerchants    = "search_merchants"
	GetMerchantDetails = "get_merchant_details"
	GetCoupons         = "get_coupons"
)

// maxAnswerBytes bounds what one read hands the model.
const maxAnswerBytes = 64 << 10

// read is one of the three reads: a name, a path and how its arguments
// become the query.
type read struct {
	name, description, path string
	schema                  string
	words                   api.ToolWords
	query                   func(args json.RawMessage) (url.Values, error)
	base                    *url.URL
	client                  *http.Client
}

// New returns the three reads over the merchant service at baseURL (an
// absolute http or https URL); client nil means one with a 10 s timeout.
func New(baseURL string, client *http.Client) ([]tools.Tool, error) {
	base, err := url.Parse(baseURL)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" || base.User != nil {
		// Never the URL itself: credentials in it would reach the log.
		return nil, errors.New("merchanttool: base URL: want an absolute http or https URL without credentials")
	}
	base.Path = strings.TrimSuffix(base.Path, "/")
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	idsSchema := `{"type":"object","additionalProperties":false,"required":["ids"],"properties":{"ids":{"type":"array","maxItems":50,"items":{"type":"string","maxLength":40}}}}`
	return []tools.Tool{
		&read{name: SearchMerchants, path: "/merchants", base: base, client: client,
			description: "Search the merchants of a city. Answers id, name, city and price_for_two of each.",
			schema:      `{"type":"object","additionalProperties":false,"required":["city"],"properties":{"city":{"type":"string","maxLength":100}}}`,
			query:       cityQuery,
			words:       api.ToolWords{Noun: "merchants", Verb: "search", Past: "searched", Running: "Searching merchants"}},
		&read{name: GetMerchantDetails, path: "/merchants/details", base: base, client: client,
			description: "Read merchants' details (category, rating, noise) by id.", schema: idsSchema, query: idsQuery,
			words: api.ToolWords{Noun: "details", Verb: "check", Past: "checked", Running: "Checking details"}},
		&read{name: GetCoupons, path: "/coupons", base: base, client: client,
			description: "List the coupons of merchants, by id.", schema: idsSchema, query: idsQuery,
			words: api.ToolWords{Noun: "coupons", Verb: "check", Past: "checked", Running: "Checking coupons"}},
	}, nil
}

func cityQuery(raw json.RawMessage) (url.Values, error) {
	var a struct {
		City string `json:"city"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("decode arguments: %w", err)
	}
	return url.Values{"city": {a.City}}, nil
}

func idsQuery(raw json.RawMessage) (url.Values, error) {
	var a struct {
		IDs []string `json:"ids"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("decode arguments: %w", err)
	}
	for _, id := range a.IDs {
		if strings.Contains(id, ",") {
			return nil, fmt.Errorf("merchant id %.40q has a comma", id)
		}
	}
	return url.Values{"ids": {strings.Join(a.IDs, ",")}}, nil
}

func (t *read) Spec() api.ToolSpec {
	return api.ToolSpec{Name: t.name, Description: t.description, Parameters: json.RawMessage(t.schema), Words: t.words}
}

// Execute sends the GET. A 503 is the service saying it is down ("coupons
// unavailable", the reason a partial run gives): that is final for this run
// (tools.Rejected), so that an optional read such as get_coupons degrades
// the answer now instead of holding the person for the minutes of a read's
// retries. Any other failure is retried.
func (t *read) Execute(ctx context.Context, call tools.Call) (api.ToolOutput, error) {
	q, err := t.query(call.Args)
	if err != nil {
		return api.ToolOutput{}, tools.Rejected(t.name+": "+err.Error(), err)
	}
	u := *t.base
	u.Path += t.path
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return api.ToolOutput{}, tools.Rejected(t.name+": build request", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := t.client.Do(req)
	if err != nil {
		return api.ToolOutput{}, fmt.Errorf("%s: GET %s: %w", t.name, t.path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes+1))
	if err != nil {
		return api.ToolOutput{}, fmt.Errorf("%s: read answer: %w", t.name, err)
	}
	switch {
	case resp.StatusCode == http.StatusServiceUnavailable:
		return api.ToolOutput{}, tools.Rejected(fmt.Sprintf("%s unavailable: the merchant service answered %d to %s", t.words.Noun, resp.StatusCode, t.path), nil)
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests:
		return api.ToolOutput{}, fmt.Errorf("%s: the merchant service answered %d", t.name, resp.StatusCode)
	case resp.StatusCode != http.StatusOK:
		return api.ToolOutput{}, tools.Rejected(fmt.Sprintf("the merchant service answered %d to %s", resp.StatusCode, t.path), nil)
	case len(body) > maxAnswerBytes:
		return api.ToolOutput{}, tools.Rejected(fmt.Sprintf("the merchant service's answer is over %d bytes", maxAnswerBytes), nil)
	case !json.Valid(body):
		return api.ToolOutput{}, tools.Rejected("the merchant service's answer is not JSON", errors.New("invalid JSON"))
	}
	return api.ToolOutput{Content: body}, nil
}
