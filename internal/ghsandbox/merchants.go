package ghsandbox

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The merchant service: what the recommend agent reads (search, details,
// coupons) and where it saves its result. It shares the fault queue and the
// request log with the GitHub API, so that a test can take the coupon
// service down (a fault on OpGetCoupons) or lose the save's answer.
const (
	OpSearchMerchants     = "search_merchants"
	OpGetMerchantDetails  = "get_merchant_details"
	OpGetCoupons          = "get_coupons"
	OpSaveRecommendation  = "save_recommendation"
	OpListRecommendations = "list_recommendations"
)

// merchantOps are the merchant service's operations a fault can name.
var merchantOps = []string{OpSearchMerchants, OpGetMerchantDetails, OpGetCoupons, OpSaveRecommendation, OpListRecommendations}

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

// merchantService holds the saved recommendations; the fixture is fixed.
type merchantService struct {
	mu    sync.Mutex
	saved []SavedRecommendation
}

func (s *Server) merchantRoutes() {
	s.mux.Handle("GET /merchants", s.api(OpSearchMerchants, searchMerchants))
	s.mux.Handle("GET /merchants/details", s.api(OpGetMerchantDetails, merchantDetails))
	s.mux.Handle("GET /coupons", s.api(OpGetCoupons, listCoupons))
	s.mux.Handle("POST /recommendations", s.api(OpSaveRecommendation, s.saveRecommendation))
	s.mux.Handle("GET /recommendations", s.api(OpListRecommendations, s.listRecommendations))
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

func searchMerchants(r *http.Request) Response {
	city := strings.ToLower(strings.TrimSpace(r.URL.Query().Get("city")))
	merchants, _, _ := merchantFixture()
	hits := []Merchant{}
	for _, m := range merchants {
		if city == "" || m.City == city {
			hits = append(hits, m)
		}
	}
	return JSON(http.StatusOK, hits)
}

func merchantDetails(r *http.Request) Response {
	_, details, _ := merchantFixture()
	found := []MerchantDetails{}
	for _, id := range idsParam(r) {
		if d, ok := details[id]; ok {
			found = append(found, d)
		}
	}
	return JSON(http.StatusOK, found)
}

func listCoupons(r *http.Request) Response {
	_, _, coupons := merchantFixture()
	ids := idsParam(r)
	found := []Coupon{}
	for _, c := range coupons {
		if slices.Contains(ids, c.MerchantID) {
			found = append(found, c)
		}
	}
	return JSON(http.StatusOK, found)
}

// saveRecommendation honours Idempotency-Key as Stripe does: a repeat of a
// key answers the first save again, 200 instead of 201, and saves nothing.
func (s *Server) saveRecommendation(r *http.Request) Response {
	key := r.Header.Get("Idempotency-Key")
	if key == "" || len(key) > 200 {
		return Error(http.StatusBadRequest, "an Idempotency-Key header of 1 to 200 bytes is required", "")
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRecommendationBytes+1))
	if err != nil || len(body) > maxRecommendationBytes || !json.Valid(body) {
		return Error(http.StatusBadRequest, "the body must be JSON of at most 64 KiB", "")
	}
	m := &s.merchants
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, saved := range m.saved {
		if saved.IdempotencyKey == key {
			resp := JSON(http.StatusOK, saved)
			resp.Header.Set("Idempotent-Replayed", "true")
			return resp
		}
	}
	saved := SavedRecommendation{ID: "rec-" + strconv.Itoa(len(m.saved)+1), IdempotencyKey: key, Body: body}
	m.saved = append(m.saved, saved)
	return JSON(http.StatusCreated, saved)
}

func (s *Server) listRecommendations(*http.Request) Response {
	return JSON(http.StatusOK, s.Recommendations())
}

// Recommendations are the saved recommendations, oldest first.
func (s *Server) Recommendations() []SavedRecommendation {
	s.merchants.mu.Lock()
	defer s.merchants.mu.Unlock()
	return append([]SavedRecommendation{}, s.merchants.saved...)
}
