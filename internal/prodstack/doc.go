// Package prodstack starts, for a test, the production engine agentrun runs
// on outside the dev server: PostgreSQL from the machine's packages, the
// Temporal server built from go.temporal.io/server (the release compose's
// auto-setup image runs) with its schema set up by its own SQL tool, its
// frontend behind mutual TLS with certificates the test generates, and
// agentrun's search attributes registered through the operator service.
// Clients reach it only through the TEMPORAL_* variables (ClientEnv), as the
// programs do, with payload encryption on.
//
// Everything it starts listens on 127.0.0.1 and is stopped when the test
// ends, whether it passed or not. `make test-prod` builds the server into
// bin/ and runs the scenarios of internal/prodtest; without the server or
// PostgreSQL a plain `go test` skips them (saying what is missing),
// and under `make test-prod` (RequiredEnv) the same check fails instead.
package prodstack
