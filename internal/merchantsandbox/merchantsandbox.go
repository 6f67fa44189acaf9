// Package merchantsandbox is the fake merchant service the recommend agent
// reads (search, details, coupons) and saves its result to. It is not
// GitHub's: the GitHub sandbox (internal/ghsandbox) serves it on the same
// port, fault queue and request log, so that `make up` runs one sandbox and
// a test can take the coupon service down (a fault on OpGetCoupons) or lose
// the save's answer exactly as it does a GitHub call's. This package holds
// the service's operations, data and handlers; it writes no HTTP itself.
package merchantsandbox

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Operations a fault can target; they also name requests in the sandbox's
// request log.
const (
	OpSearchMerchants     = "search_merchants"
	OpGetMerchantDetails  = "get_merchant_details"
	OpGetCoupons          = "get_coupons"
	OpSaveRecommendation  = "save_recommendation"
	OpListRecommendations = "list_recommendations"
)

// Ops are the service's operations.
var Ops = []string{OpSearchMerchants, OpGetMerchantDetails, OpGetCoupons, OpSaveRecommendation, OpListRecommendations}

// maxRecommendationBytes bounds a saved recommendation's body.
const maxRecommendationBytes = 64 << 10

// Merchant is one search hit: what the funnel's budget step reads.
type Merchant struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	City string `json:"city"`
	// PriceForTwo is a typical bill for two, in the city's currency.
	PriceForTwo int `json:"price_for_two"`
}

// MerchantDetails is what a merchant's page says beyond the search hit.
type MerchantDetails struct {
	ID       string  `json:"id"`
	Category string  `json:"category"`
	Rating   float64 `json:"rating"`
	// Noise is "quiet", "moderate" or "loud".
	Noise string `json:"noise"`
}

// Coupon is one offer a merchant has.
type Coupon struct {
	MerchantID string `json:"merchant_id"`
	Title      string `json:"title"`
	Discount   int    `json:"discount"`
}

// SavedRecommendation is one saved result, by the Idempotency-Key it came under.
type SavedRecommendation struct {
	ID             string          `json:"id"`
	IdempotencyKey string          `json:"idempotency_key"`
	Body           json.RawMessage `json:"body"`
}

// merchantFixture is the demo's ten candidates in one city: six in a
// budget of about 150 for two, four of those with coupons.
func merchantFixture() ([]Merchant, map[string]MerchantDetails, []Coupon) {
	merchants := []Merchant{
		{"m01", "Lantern Tea House", "riverside", 120},
		{"m02", "Quiet Corner Bistro", "riverside", 150},
		{"m03", "Harbour Grill", "riverside", 320},
		{"m04", "Paper Crane Izakaya", "riverside", 140},
		{"m05", "Neon Noodle Bar", "riverside", 90},
		{"m06", "Velvet Steakhouse", "riverside", 480},
		{"m07", "Garden Courtyard", "riverside", 160},
		{"m08", "Rooftop Club 9", "riverside", 260},
		{"m09", "Old Town Dumplings", "riverside", 80},
		{"m10", "Saffron Table", "riverside", 210},
	}
	details := map[string]MerchantDetails{
		"m01": {"m01", "tea house", 4.6, "quiet"},
		"m02": {"m02", "bistro", 4.4, "quiet"},
		"m03": {"m03", "grill", 4.5, "moderate"},
		"m04": {"m04", "izakaya", 4.3, "moderate"},
		"m05": {"m05", "noodle bar", 4.1, "loud"},
		"m06": {"m06", "steakhouse", 4.8, "quiet"},
		"m07": {"m07", "garden restaurant", 4.7, "quiet"},
		"m08": {"m08", "bar", 4.0, "loud"},
		"m09": {"m09", "dumpling house", 4.2, "moderate"},
		"m10": {"m10", "indian", 4.5, "moderate"},
	}
	coupons := []Coupon{
		{"m01", "20 off a set for two", 20},
		{"m02", "free dessert for two", 15},
		{"m04", "10% off before 7 pm", 14},
		{"m05", "5 off any bowl", 5},
		{"m06", "free glass of wine", 12},
	}
	return merchants, details, coupons
}

// Answer is a handler's response before it is written: the sandbox's
// fault queue decides whether and when it reaches the client. Body is sent
// as JSON.
type Answer struct {
	Status int
	Header http.Header
	Body   any
}

// Route is one of the service's endpoints.
type Route struct {
	Pattern string // a net/http ServeMux pattern
	Op      string
	Handle  func(*http.Request) Answer
}

// Service holds the saved recommendations; the fixture is fixed.
type Service struct {
	mu    sync.Mutex
	saved []SavedRecommendation
}

// Routes are the service's endpoints.
func (s *Service) Routes() []Route {
	return []Route{
		{"GET /merchants", OpSearchMerchants, searchMerchants},
		{"GET /merchants/details", OpGetMerchantDetails, merchantDetails},
		{"GET /coupons", OpGetCoupons, listCoupons},
		{"POST /recommendations", OpSaveRecommendation, s.saveRecommendation},
		{"GET /recommendations", OpListRecommendations, s.listRecommendations},
	}
}

// idsParam reads ?ids=a,b,c; the demo never asks for more than the fixture.
func idsParam(r *http.Request) []string {
	var ids []string
	for _, id := range strings.Split(r.URL.Query().Get("ids"), ",") {
		if id = strings.TrimSpace(id); id != "" && len(ids) < 50 {
			ids = append(ids, id)
		}
	}
	return ids
}

func searchMerchants(r *http.Request) Answer {
	city := strings.ToLower(strings.TrimSpace(r.URL.Query().Get("city")))
	merchants, _, _ := merchantFixture()
	hits := []Merchant{}
	for _, m := range merchants {
		if city == "" || m.City == city {
			hits = append(hits, m)
		}
	}
	return Answer{Status: http.StatusOK, Body: hits}
}

func merchantDetails(r *http.Request) Answer {
	_, details, _ := merchantFixture()
	found := []MerchantDetails{}
	for _, id := range idsParam(r) {
		if d, ok := details[id]; ok {
			found = append(found, d)
		}
	}
	return Answer{Status: http.StatusOK, Body: found}
}

func listCoupons(r *http.Request) Answer {
	_, _, coupons := merchantFixture()
	ids := idsParam(r)
	found := []Coupon{}
	for _, c := range coupons {
		if slices.Contains(ids, c.MerchantID) {
			found = append(found, c)
		}
	}
	return Answer{Status: http.StatusOK, Body: found}
}

// refused is a 400 with the service's error shape.
func refused(message string) Answer {
	return Answer{Status: http.StatusBadRequest, Body: map[string]string{"message": message}}
}

// saveRecommendation honours Idempotency-Key as Stripe does: a repeat of a
// key answers the first save again, 200 instead of 201, and saves nothing.
func (s *Service) saveRecommendation(r *http.Request) Answer {
	key := r.Header.Get("Idempotency-Key")
	if key == "" || len(key) > 200 {
		return refused("an Idempotency-Key header of 1 to 200 bytes is required")
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRecommendationBytes+1))
	if err != nil || len(body) > maxRecommendationBytes || !json.Valid(body) {
		return refused("the body must be JSON of at most 64 KiB")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, saved := range s.saved {
		if saved.IdempotencyKey == key {
			return Answer{Status: http.StatusOK, Header: http.Header{"Idempotent-Replayed": {"true"}}, Body: saved}
		}
	}
	saved := SavedRecommendation{ID: "rec-" + strconv.Itoa(len(s.saved)+1), IdempotencyKey: key, Body: body}
	s.saved = append(s.saved, saved)
	return Answer{Status: http.StatusCreated, Body: saved}
}

func (s *Service) listRecommendations(*http.Request) Answer {
	return Answer{Status: http.StatusOK, Body: s.Recommendations()}
}

// Recommendations are the saved recommendations, oldest first.
func (s *Service) Recommendations() []SavedRecommendation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]SavedRecommendation{}, s.saved...)
}
