package temporalclient

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/agentrun/agentrun/internal/testkit/standalone"
)

func compressionOf(t *testing.T, env map[string]string) client.GrpcCompression {
	t.Helper()
	cfg, err := ConfigFromEnv(standalone.Getenv(env))
	require.NoError(t, err)
	return cfg.ClientOptions(nil).ConnectionOptions.GrpcCompression
}

func TestByDefaultAClientOfThisMachineSendsUncompressedAndARemoteOneGzips(t *testing.T) {
	for _, address := range []string{"", "localhost:7233", "LOCALHOST:7233", "127.0.0.1:7233", "127.3.4.5:7233", "[::1]:7233"} {
		require.IsType(t, &client.GrpcCompressionNone{}, compressionOf(t, map[string]string{"TEMPORAL_ADDRESS": address}), address)
	}
	// Names that only look local are a network away.
	for _, address := range []string{"agents.a1b2c.tmprl.cloud:7233", "10.0.0.5:7233", "localhost.example.com:7233", "[2001:db8::1]:7233", "127.0.0.1.nip.io:7233"} {
		require.IsType(t, &client.GrpcCompressionGzip{}, compressionOf(t, map[string]string{"TEMPORAL_ADDRESS": address}), address)
	}
}

func TestAGRPCCompressionThatIsSetWinsOverTheAddress(t *testing.T) {
	require.IsType(t, &client.GrpcCompressionGzip{}, compressionOf(t, map[string]string{"AGENTRUN_GRPC_COMPRESSION": "gzip"}))
	require.IsType(t, &client.GrpcCompressionNone{}, compressionOf(t, map[string]string{
		"AGENTRUN_GRPC_COMPRESSION": "None", "TEMPORAL_ADDRESS": "agents.a1b2c.tmprl.cloud:7233",
	}))
	require.IsType(t, &client.GrpcCompressionNone{}, compressionOf(t, map[string]string{"AGENTRUN_GRPC_COMPRESSION": "auto"}))
}

func TestAnUnknownGRPCCompressionStopsStartUpNamingTheVariable(t *testing.T) {
	for _, v := range []string{"zstd", "true", "gzip,none"} {
		_, err := ConfigFromEnv(standalone.Getenv(map[string]string{"AGENTRUN_GRPC_COMPRESSION": v}))
		require.Error(t, err, v)
		require.Contains(t, err.Error(), "AGENTRUN_GRPC_COMPRESSION")
		require.Contains(t, err.Error(), v)
	}
}

func TestTheStartUpLogSaysWhichCompressionTheClientUses(t *testing.T) {
	attrs := Config{Address: "agents.a1b2c.tmprl.cloud:7233"}.LogAttrs()
	require.Contains(t, attrs, "grpcCompression")
	for i, a := range attrs {
		if a == "grpcCompression" {
			require.Equal(t, "gzip", attrs[i+1])
		}
	}
}
