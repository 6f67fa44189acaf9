package offline

import (
	"cmp"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/agentrun/agentrun/api"
)

// The recommend agent's tools, as the model is offered them.
const (
	toolSearchMerchants    = "search_merchants"
	toolGetMerchantDetails = "get_merchant_details"
	toolGetCoupons         = "get_coupons"
	toolSaveRecommendation = "save_recommendation"
)

// recommendPicks is how many merchants a recommendation names.
const recommendPicks = 3

// budgetSlack is how far over the budget "about 150" still reaches: 10%.
const budgetSlack = 1.10

// targetField reads NAME=VALUE from the user message's target
// ("recommendation_request budget=150 city=riverside party_size=2.").
var targetField = regexp.MustCompile(`\b([a-z][a-z0-9_]*)=([^\s.]+)`)

// candidate is one merchant as the funnel sees it.
type candidate struct {
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	PriceForTwo int     `json:"price_for_two"`
	Category    string  `json:"category,omitempty"`
	Rating      float64 `json:"rating,omitempty"`
	Noise       string  `json:"noise,omitempty"`
	Coupon      string  `json:"coupon,omitempty"`
	Discount    int     `json:"discount,omitempty"`
	Reason      string  `json:"reason"`
}

// Funnel is the ranking's trace: how many merchants each stage kept and
// the ones chosen, with why.
type Funnel struct {
	Candidates, InBudget, WithCoupons int
	// CouponsFailed is the coupon read's failure, when it failed.
	CouponsFailed string
	Chosen        []candidate
}

// request is what the person asked, from the target's fields.
type request struct {
	city              string
	partySize, budget int
}

func readRequest(user string) request {
	r := request{partySize: 2}
	for _, m := range targetField.FindAllStringSubmatch(user, -1) {
		switch m[1] {
		case "city":
			r.city = m[2]
		case "party_size":
			r.partySize, _ = strconv.Atoi(m[2])
		case "budget":
			r.budget, _ = strconv.Atoi(m[2])
		}
	}
	return r
}

// recommend is the recommend agent's dialogue: search, details, coupons,
// then the ranked save, then the answer that explains the funnel.
func (c conversation) recommend(tools []api.ToolSpec, turn int) (api.ModelDecision, error) {
	req := readRequest(c.user)
	search, ok := c.results[toolSearchMerchants]
	if !ok {
		args, _ := json.Marshal(map[string]string{"city": req.city})
		return api.ModelDecision{ToolCalls: []api.ToolCall{toolCall(turn, toolSearchMerchants, args)}}, nil
	}
	var all []candidate
	if err := json.Unmarshal([]byte(search), &all); err != nil {
		return final(fmt.Sprintf("Could not recommend: %s failed: %s", toolSearchMerchants, quote(search))), nil
	}
	inBudget := withinBudget(all, req.budget)
	ids := make([]string, 0, len(inBudget))
	for _, m := range inBudget {
		ids = append(ids, m.ID)
	}
	idArgs, _ := json.Marshal(map[string][]string{"ids": ids})
	details, ok := c.results[toolGetMerchantDetails]
	if !ok {
		return api.ModelDecision{ToolCalls: []api.ToolCall{toolCall(turn, toolGetMerchantDetails, idArgs)}}, nil
	}
	coupons, ok := c.results[toolGetCoupons]
	if !ok && offered(tools, toolGetCoupons) {
		return api.ModelDecision{ToolCalls: []api.ToolCall{toolCall(turn, toolGetCoupons, idArgs)}}, nil
	}
	f := Rank(all, req.budget, details, coupons)
	text := f.Explain(req)
	if saved, ok := c.results[toolSaveRecommendation]; ok {
		return final(text + "\n\n" + savedLine(saved)), nil
	}
	if !offered(tools, toolSaveRecommendation) {
		return final(text + "\n\nNot saved: the " + toolSaveRecommendation + " tool is not offered."), nil
	}
	body := map[string]any{"request": map[string]any{"city": req.city, "party_size": req.partySize, "budget": req.budget},
		"picks": f.Chosen, "partial": f.CouponsFailed != ""}
	args, err := json.Marshal(map[string]any{"method": "POST", "path": "/recommendations", "body": body})
	if err != nil {
		return api.ModelDecision{}, fmt.Errorf("encode the recommendation: %w", err)
	}
	return api.ModelDecision{ToolCalls: []api.ToolCall{toolCall(turn, toolSaveRecommendation, args)}}, nil
}

func withinBudget(all []candidate, budget int) []candidate {
	var kept []candidate
	for _, m := range all {
		if budget <= 0 || float64(m.PriceForTwo) <= float64(budget)*budgetSlack {
			kept = append(kept, m)
		}
	}
	return kept
}

// Rank runs the funnel over the reads' results: the budget, then the
// coupons (when the coupon read answered), then the best score. The score
// favours a high rating and a quiet room (the ask is somewhere to talk),
// then a coupon's discount; ties go to the lower price, then the id, so the
// same results always give the same choice.
func Rank(all []candidate, budget int, detailsJSON, couponsJSON string) Funnel {
	f := Funnel{Candidates: len(all)}
	pool := withinBudget(all, budget)
	f.InBudget = len(pool)
	var details []candidate
	_ = json.Unmarshal([]byte(detailsJSON), &details)
	for i := range pool {
		for _, d := range details {
			if d.ID == pool[i].ID {
				pool[i].Category, pool[i].Rating, pool[i].Noise = d.Category, d.Rating, d.Noise
			}
		}
	}
	var coupons []struct {
		MerchantID string `json:"merchant_id"`
		Title      string `json:"title"`
		Discount   int    `json:"discount"`
	}
	if err := json.Unmarshal([]byte(couponsJSON), &coupons); err != nil {
		f.CouponsFailed = clip(oneLine(strings.TrimPrefix(strings.TrimSpace(couponsJSON), "failed: ")), 300)
		if f.CouponsFailed == "" {
			f.CouponsFailed = "no answer"
		}
	}
	for i := range pool {
		for _, cp := range coupons {
			if cp.MerchantID == pool[i].ID && cp.Discount > pool[i].Discount {
				pool[i].Coupon, pool[i].Discount = cp.Title, cp.Discount
			}
		}
	}
	couponed := slices.DeleteFunc(slices.Clone(pool), func(m candidate) bool { return m.Coupon == "" })
	f.WithCoupons = len(couponed)
	byScore := func(a, b candidate) int {
		return cmp.Or(cmp.Compare(score(b), score(a)), cmp.Compare(a.PriceForTwo, b.PriceForTwo), cmp.Compare(a.ID, b.ID))
	}
	slices.SortFunc(couponed, byScore)
	rest := slices.DeleteFunc(slices.Clone(pool), func(m candidate) bool { return m.Coupon != "" })
	slices.SortFunc(rest, byScore)
	for _, m := range append(couponed, rest...) {
		if len(f.Chosen) == recommendPicks {
			break
		}
		m.Reason = reason(m)
		f.Chosen = append(f.Chosen, m)
	}
	return f
}

func score(m candidate) float64 {
	quiet := map[string]float64{"quiet": 0.5, "moderate": 0.2}[m.Noise]
	return m.Rating + quiet + float64(m.Discount)/100
}

func reason(m candidate) string {
	parts := []string{fmt.Sprintf("%d for two", m.PriceForTwo)}
	if m.Noise != "" {
		parts = append(parts, m.Noise)
	}
	if m.Rating > 0 {
		parts = append(parts, fmt.Sprintf("rated %.1f", m.Rating))
	}
	if m.Coupon != "" {
		parts = append(parts, "coupon: "+m.Coupon)
	}
	return strings.Join(parts, ", ")
}

// Explain is the funnel in words, with the partial line when coupons failed.
func (f Funnel) Explain(req request) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Recommendations for %d in %s, about %d: %d candidates → %d in budget", req.partySize, req.city, req.budget, f.Candidates, f.InBudget)
	if f.CouponsFailed == "" {
		fmt.Fprintf(&b, " → %d with coupons", f.WithCoupons)
	}
	fmt.Fprintf(&b, " → %d chosen.", len(f.Chosen))
	for i, m := range f.Chosen {
		fmt.Fprintf(&b, "\n%d. %s (%s)", i+1, plainText(m.Name), m.Reason)
	}
	if f.CouponsFailed != "" {
		// The tool's own error usually opens with "coupons unavailable"; say it once.
		why := cmp.Or(strings.TrimSpace(strings.TrimPrefix(f.CouponsFailed, "coupons unavailable:")), f.CouponsFailed)
		fmt.Fprintf(&b, "\npartial: coupons unavailable (tool %s failed: %s)", toolGetCoupons, why)
	}
	return b.String()
}

// savedLine says what the save answered: httptool's {"status","body"}.
func savedLine(result string) string {
	var out struct {
		Status int `json:"status"`
		Body   struct {
			ID string `json:"id"`
		} `json:"body"`
	}
	if err := json.Unmarshal([]byte(result), &out); err != nil || out.Body.ID == "" {
		return "The recommendation was not saved: " + quote(result) + "."
	}
	return fmt.Sprintf("Saved as recommendation %s.", plainText(out.Body.ID))
}
