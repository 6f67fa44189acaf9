# agentrun: `make up` runs the local stack with a demo run, `make test` runs
# every check CI runs. The stack's logic lives in internal/scripts/stack.sh.

GO ?= go
TEMPORAL_CLI_VERSION := v1.5.1
AXE_CORE_VERSION := 4.14.1
# The newest workflowcheck the module proxy serves; it analyses Go 1.26 code.
WORKFLOWCHECK_VERSION := v0.6.0
# Mutation testing of the guarantee files (make test-mutation).
GREMLINS_VERSION := v0.6.0
# The Temporal server of the production-cluster test (make test-prod), the
# release docker-compose runs; internal/prodstack.ServerVersion must agree
# (internal/composecheck checks both).
TEMPORAL_SERVER_VERSION := v1.29.1
TEMPORAL_SERVER_BIN := bin/temporal-server-$(TEMPORAL_SERVER_VERSION)
TEMPORAL_SERVER_PROGRAMS := $(TEMPORAL_SERVER_BIN)/server $(TEMPORAL_SERVER_BIN)/sql

# Fault-injection tests are named TestFault*; the fault suite may narrow the packages.
FAULT_PKGS ?= ./...
# Fuzz targets as package:FuzzName, e.g. ./workflows:FuzzLifecycle.
FUZZ_TARGETS ?= ./internal/approvalsrv:FuzzParseDecision ./internal/approvalsrv:FuzzParseCommentCommand
FUZZTIME ?= 15s

# The test steps pipe `go test -json` through testreport, which prints go
# test's usual output and records every skip; `make test` ends by listing
# them with how to run each. pipefail keeps go test's exit code.
SHELL := /bin/bash
TESTREPORT := bin/testreport
TEST_SKIPS := bin/test-skips.jsonl
REPORT_SKIPS := 2>&1 | $(TESTREPORT) -record $(TEST_SKIPS)

# Mains built into bin/ by `make build`; approval joins once it exists.
MAINS := ./worker ./starter ./internal/ghsandbox/cmd/ghsandbox $(if $(wildcard approval/*.go),./approval)

.PHONY: readme-screenshot all build test vet workflowcheck test-faults test-sweep test-fuzz test-prod test-mutation temporal-server bench up down

all: build

bin/temporal:
	GOBIN=$(CURDIR)/bin $(GO) install github.com/temporalio/cli/cmd/temporal@$(TEMPORAL_CLI_VERSION)

# cmd/server and cmd/tools/sql (temporal-sql-tool), built once: the module has
# no replace directives, so go install builds it as released. The first
# build takes about 4 minutes of CPU (12 to 15 minutes on 2 busy cores).
$(TEMPORAL_SERVER_PROGRAMS):
	GOBIN=$(CURDIR)/$(TEMPORAL_SERVER_BIN) $(GO) install \
		go.temporal.io/server/cmd/server@$(TEMPORAL_SERVER_VERSION) \
		go.temporal.io/server/cmd/tools/sql@$(TEMPORAL_SERVER_VERSION)

temporal-server: $(TEMPORAL_SERVER_PROGRAMS)

bin/gremlins:
	GOBIN=$(CURDIR)/bin $(GO) install github.com/go-gremlins/gremlins/cmd/gremlins@$(GREMLINS_VERSION)

$(TESTREPORT): $(wildcard internal/testkit/cmd/testreport/*.go)
	$(GO) build -o $@ ./internal/testkit/cmd/testreport

# axe-core (npm), which the browser tests inject into Chromium to check each
# page against WCAG 2.1 AA.
AXE_CORE := bin/axe-core/node_modules/axe-core/axe.min.js
$(AXE_CORE):
	npm install --prefix bin/axe-core --no-audit --no-fund --no-save axe-core@$(AXE_CORE_VERSION)

bin/workflowcheck:
	GOBIN=$(CURDIR)/bin $(GO) install go.temporal.io/sdk/contrib/tools/workflowcheck@$(WORKFLOWCHECK_VERSION)

build:
	$(GO) build -o bin/ $(MAINS)

# examples/customtool and examples/chattool are modules of their own, which
# ./... does not reach; internal/e2e builds and runs them, and customtool's
# conformance test runs the kit on the repository's bin/temporal.
vet:
	$(GO) vet ./...
	$(GO) vet -C examples/customtool ./...
	$(GO) vet -C examples/chattool ./...

workflowcheck: bin/workflowcheck
	bin/workflowcheck -config workflows/workflowcheck.yaml ./workflows/...

# With CI set, a test that lacks a tool (bin/temporal, chromium, PostgreSQL)
# fails instead of skipping; the skips left are opt-in modes (-record,
# AGENTRUN_BENCH), and the list at the end names them. The rulechange run
# swaps one of api's rules (who is an approver) and shows that the workflow
# and the approval server both follow it (api/rules_approver.go).
test: bin/temporal bin/workflowcheck $(AXE_CORE) $(TESTREPORT) vet workflowcheck
	@rm -f $(TEST_SKIPS)
	set -o pipefail; $(GO) test -json -count=1 -timeout 40m -skip '^(TestFault|TestProd)' ./... $(REPORT_SKIPS)
	set -o pipefail; $(GO) test -json -count=1 -tags rulechange -run 'RuleChange|ByAPIsRule' ./api ./workflows ./internal/approvalsrv $(REPORT_SKIPS)
	set -o pipefail; AGENTRUN_TEST_TEMPORAL_CLI=$(CURDIR)/bin/temporal $(GO) test -C examples/customtool -json -count=1 ./... $(REPORT_SKIPS)
	set -o pipefail; AGENTRUN_TEST_TEMPORAL_CLI=$(CURDIR)/bin/temporal $(GO) test -C examples/chattool -json -count=1 ./... $(REPORT_SKIPS)
	$(MAKE) test-faults test-fuzz test-prod
	@$(TESTREPORT) -summary $(TEST_SKIPS)

test-faults: bin/temporal $(TESTREPORT)
	set -o pipefail; $(GO) test -json -count=1 -timeout 40m -run 'TestFault' $(FAULT_PKGS) $(REPORT_SKIPS)

# The crash-point sweep at every kill point: the worker SIGKILLed after each
# event of an approved run of every agent in turn (docs/testing.md). The
# fault suite above runs four points per agent; this runs all 284 (2 sides of
# 142 events), about 40 minutes on 2 busy cores.
# -v prints where each kill landed and the sweep's tally.
test-sweep: bin/temporal
	AGENTRUN_SWEEP=full $(GO) test -v -count=1 -timeout 80m -run '^TestFaultCrashPointSweep' ./internal/e2e/

# The production engine: PostgreSQL from the machine's packages and the
# Temporal server above, over mTLS, with encrypted payloads. AGENTRUN_TEST_PROD
# turns a missing tool into a failure that names it: CI never skips it.
test-prod: $(TEMPORAL_SERVER_PROGRAMS) $(TESTREPORT)
	set -o pipefail; AGENTRUN_TEST_PROD=1 $(GO) test -json -count=1 -timeout 20m -run '^TestProd' ./internal/prodtest/ $(REPORT_SKIPS)

test-fuzz:
	@if [ -z "$(strip $(FUZZ_TARGETS))" ]; then echo "test-fuzz: no fuzz targets yet"; fi
	@set -e; for target in $(FUZZ_TARGETS); do \
		pkg=$${target%%:*}; fuzz=$${target##*:}; \
		echo "$(GO) test -run '^$$' -fuzz '^'$$fuzz'$$' -fuzztime $(FUZZTIME) $$pkg"; \
		$(GO) test -run '^$$' -fuzz "^$$fuzz\$$" -fuzztime $(FUZZTIME) $$pkg; \
	done

# Mutation testing takes longer than the rest of the suite on 2 cores, so it
# is its own target; docs/testing.md keeps its last report.
test-mutation: bin/gremlins
	internal/scripts/mutation.sh

# Every goal of issue 24 measured in one run (up to 20 minutes on 2 cores):
# the dev-server rows, then the production engine's cost per approved run
# (PostgreSQL and the server built above), written into docs/benchmarks.md;
# `make test` runs the dev-server rows small.
bench: bin/temporal $(TEMPORAL_SERVER_PROGRAMS)
	AGENTRUN_BENCH=full AGENTRUN_BENCH_OUT=$(CURDIR)/docs/benchmarks.md AGENTRUN_BENCH_CPUPROFILE=$(CURDIR)/bin/bench-cpu.pprof \
		$(GO) test -count=1 -timeout 30m -run '^(TestBenchReport|TestProdEngineCostPerApprovedRun)$$' -v ./internal/bench

# The README's picture of the approval page, from a real run (Temporal dev
# server, worker, the sandbox's GitHub) waiting on its review comment.
readme-screenshot: bin/temporal $(AXE_CORE)
	AGENTRUN_SCREENSHOT_DIR=$(CURDIR)/docs/img $(GO) test -count=1 -run '^TestBrowserREADMEScreenshotOfTheApprovalPage$$' ./approval

up: bin/temporal build
	internal/scripts/stack.sh up

down:
	internal/scripts/stack.sh down
