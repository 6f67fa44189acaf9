package temporalclient

import (
	"fmt"
	"net"
	"strings"

	"go.temporal.io/sdk/client"
)

// Compression is how a client compresses its gRPC messages to the frontend
// (AGENTRUN_GRPC_COMPRESSION).
type Compression string

const (
	// CompressionAuto, the zero value ("auto" in the variable), is gzip
	// except to a loopback address.
	CompressionAuto Compression = ""
	CompressionGzip Compression = "gzip"
	CompressionNone Compression = "none"
)

// ParseCompression reads AGENTRUN_GRPC_COMPRESSION; empty is auto.
func ParseCompression(v string) (Compression, error) {
	switch c := Compression(strings.ToLower(strings.TrimSpace(v))); c {
	case "auto", CompressionAuto:
		return CompressionAuto, nil
	case CompressionGzip, CompressionNone:
		return c, nil
	}
	return "", fmt.Errorf("%q is not one of auto, gzip, none", v)
}

// For is what c means for a client of address. gzip is the SDK's default and
// pays over a network, where bytes cost time and egress. Between processes
// on one machine it saves nothing and costs CPU on both ends, on every
// request and every workflow task's history: on the bench's 2 cores it was
// 15% of the worker process's CPU (compress/flate), and the server's gzip
// of its answers some more.
func (c Compression) For(address string) Compression {
	if c != CompressionAuto {
		return c
	}
	if isLoopback(address) {
		return CompressionNone
	}
	return CompressionGzip
}

func (c Compression) grpc() client.GrpcCompression {
	if c == CompressionNone {
		return &client.GrpcCompressionNone{}
	}
	return &client.GrpcCompressionGzip{}
}

func isLoopback(address string) bool {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
