package payloadcodec

import "net/http"

// Authorized reports whether r carries the endpoint's bearer token,
// compared in constant time. The approval server's route guard asks it
// before the endpoint sees the request, so that the route class applies
// its own check (internal/approvalsrv/routes.go); ServeHTTP asks again for
// a caller that serves the endpoint on its own.
func (h *handler) Authorized(r *http.Request) bool { return h.authorized(r) }
