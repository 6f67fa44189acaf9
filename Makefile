# agentrun: `make up` runs the local stack with a demo run, `make test` runs
# every check CI runs. The stack's logic lives in internal/scripts/stack.sh.

GO ?= go
TEMPORAL_CLI_VERSION := v1.5.1
# The newest workflowcheck the module proxy serves; it analyses Go 1.26 code.
WORKFLOWCHECK_VERSION := v0.6.0
# Mutation testing of the guarantee files (make test-mutation).
GREMLINS_VERSION := v0.6.0

# Fault-injection tests are named TestFault*; the fault suite may narrow the packages.
FAULT_PKGS ?= ./...
# Fuzz targets as package:FuzzName, e.g. ./workflows:FuzzLifecycle.
FUZZ_TARGETS ?= ./internal/approvalsrv:FuzzParseDecision ./internal/approvalsrv:FuzzParseCommentCommand
FUZZTIME ?= 15s

# Mains built into bin/ by `make build`; approval joins once it exists.
MAINS := ./worker ./starter ./internal/ghsandbox/cmd/ghsandbox $(if $(wildcard approval/*.go),./approval)

.PHONY: all build test vet workflowcheck test-faults test-fuzz test-mutation bench up down

all: build

bin/temporal:
	GOBIN=$(CURDIR)/bin $(GO) install github.com/temporalio/cli/cmd/temporal@$(TEMPORAL_CLI_VERSION)

bin/gremlins:
	GOBIN=$(CURDIR)/bin $(GO) install github.com/go-gremlins/gremlins/cmd/gremlins@$(GREMLINS_VERSION)

bin/workflowcheck:
	GOBIN=$(CURDIR)/bin $(GO) install go.temporal.io/sdk/contrib/tools/workflowcheck@$(WORKFLOWCHECK_VERSION)

build:
	$(GO) build -o bin/ $(MAINS)

vet:
	$(GO) vet ./...

workflowcheck: bin/workflowcheck
	bin/workflowcheck -config workflows/workflowcheck.yaml ./workflows/...

test: bin/temporal bin/workflowcheck vet workflowcheck
	$(GO) test -count=1 -timeout 40m -skip '^TestFault' ./...
	$(MAKE) test-faults test-fuzz

test-faults: bin/temporal
	$(GO) test -count=1 -timeout 40m -run 'TestFault' $(FAULT_PKGS)

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

# Every goal of issue 12 measured in one run (up to 15 minutes on 2 cores),
# written into docs/benchmarks.md; `make test` runs the same test small.
bench: bin/temporal
	AGENTRUN_BENCH=full AGENTRUN_BENCH_OUT=$(CURDIR)/docs/benchmarks.md AGENTRUN_BENCH_CPUPROFILE=$(CURDIR)/bin/bench-cpu.pprof \
		$(GO) test -count=1 -timeout 20m -run '^TestBenchReport$$' -v ./internal/bench

up: bin/temporal build
	internal/scripts/stack.sh up

down:
	internal/scripts/stack.sh down
