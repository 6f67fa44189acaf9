// Package prodtest runs agentrun's failure stories on the production engine
// of internal/prodstack (PostgreSQL, the Temporal server over mutual TLS,
// encrypted payloads) with the real mains as processes, as internal/e2e does
// on the dev server. `make test-prod` runs it; a plain `go test ./...`
// skips it when this machine lacks the server or PostgreSQL.
//
// Outcomes are read only from the sandbox's comments and the runs' queries.
package prodtest
