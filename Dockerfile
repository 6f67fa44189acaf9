# syntax=docker/dockerfile:1

# One image for every agentrun program; docker-compose.yml picks the command
# per service (worker, approval, ghsandbox) and `starter` is there for
# `docker compose run --rm worker starter ...`.

FROM golang:1.26.8 AS builder
WORKDIR /src
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
# Static binaries: no libc to match in the final stage.
ENV CGO_ENABLED=0
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    go build -trimpath -ldflags=-s -o /out/ ./worker ./approval ./starter ./internal/ghsandbox/cmd/ghsandbox

# Alpine rather than distroless: the healthchecks need busybox's wget and netstat.
FROM alpine:3.22.1
RUN addgroup -S -g 10001 agentrun && adduser -S -D -H -u 10001 -G agentrun agentrun
COPY --from=builder /out/ /usr/local/bin/
USER 10001:10001
CMD ["worker"]
