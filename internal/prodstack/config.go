package prodstack

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
	"text/template"

	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/internal/testkit/standalone"
)

// NumHistoryShards is auto-setup's default: small, so the server starts fast.
// A cluster keeps the count it was created with.
const NumHistoryShards = 4

// SQLPlugin is the persistence plugin of both stores, compose's DB.
const SQLPlugin = "postgres12"

// serverConfig is what the server's YAML is made of.
type serverConfig struct {
	Postgres *postgresServer
	User     string
	Password string
	Shards   int
	Plugin   string
	Stores   []sqlStore
	// Frontend and the other services' gRPC and membership listeners, all on
	// 127.0.0.1.
	Frontend, FrontendHTTP, FrontendMembership string
	History, HistoryMembership                 string
	Matching, MatchingMembership               string
	Worker, WorkerMembership                   string
	// TLS of the frontend: the server's pair, the CA its clients' certificates
	// must chain to, and the system worker's client pair (mTLS both ways).
	ServerCert, ServerKey, CA, ClientCert, ClientKey string
	// DynamicConfig is deploy/temporal/dynamicconfig.yaml, compose's own.
	DynamicConfig string
}

// sqlStore is one of the server's two databases, sized as auto-setup sizes it.
type sqlStore struct {
	Name, Database string
	// Schema is its folder in the module's schema/postgresql/v12.
	Schema   string
	MaxConns int
}

var stores = []sqlStore{
	{Name: "default", Database: "temporal", Schema: "temporal", MaxConns: 20},
	{Name: "visibility", Database: "temporal_visibility", Schema: "visibility", MaxConns: 10},
}

// The layout follows the server's config/development-postgres12.yaml and
// auto-setup's config_template.yaml (what compose runs), with every
// listener on a free loopback port and TLS on the frontend only: history
// and matching talk over loopback.
var serverConfigTemplate = template.Must(template.New("temporal").Funcs(template.FuncMap{"port": port}).Parse(`log:
  stdout: true
  level: warn

persistence:
  numHistoryShards: {{.Shards}}
  defaultStore: default
  visibilityStore: visibility
  datastores:
{{- range .Stores}}
    {{.Name}}:
      sql:
        pluginName: {{$.Plugin}}
        databaseName: {{.Database}}
        connectAddr: "{{$.Postgres.Host}}:{{$.Postgres.Port}}"
        connectProtocol: tcp
        user: {{$.User}}
        password: {{$.Password}}
        maxConns: {{.MaxConns}}
        maxIdleConns: {{.MaxConns}}
        maxConnLifetime: 1h
{{- end}}

global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: 127.0.0.1
  pprof:
    port: 0
  tls:
    frontend:
      server:
        certFile: {{.ServerCert}}
        keyFile: {{.ServerKey}}
        requireClientAuth: true
        clientCaFiles:
          - {{.CA}}
      client:
        serverName: localhost
        rootCaFiles:
          - {{.CA}}
    systemWorker:
      certFile: {{.ClientCert}}
      keyFile: {{.ClientKey}}
      client:
        serverName: localhost
        rootCaFiles:
          - {{.CA}}

services:
  frontend:
    rpc: {grpcPort: {{port .Frontend}}, membershipPort: {{port .FrontendMembership}}, httpPort: {{port .FrontendHTTP}}, bindOnIP: 127.0.0.1}
  history:
    rpc: {grpcPort: {{port .History}}, membershipPort: {{port .HistoryMembership}}, bindOnIP: 127.0.0.1}
  matching:
    rpc: {grpcPort: {{port .Matching}}, membershipPort: {{port .MatchingMembership}}, bindOnIP: 127.0.0.1}
  worker:
    rpc: {grpcPort: {{port .Worker}}, membershipPort: {{port .WorkerMembership}}, bindOnIP: 127.0.0.1}

clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: "{{.Frontend}}"
      httpAddress: "{{.FrontendHTTP}}"

dcRedirectionPolicy:
  policy: noop

dynamicConfigClient:
  filepath: {{.DynamicConfig}}
  pollInterval: 10s
`))

// newServerConfig picks the listeners' ports and names the files.
func newServerConfig(t testing.TB, pg *postgresServer, tl tools, certs standalone.Certs) serverConfig {
	// The server records each service's membership port in
	// cluster_membership.rpc_port, a smallint: testkit's ports lie below
	// 32768, where it fits.
	free := func() string { return testkit.FreeAddress(t) }
	return serverConfig{
		Postgres: pg, User: postgresRole, Password: postgresPassword, Shards: NumHistoryShards, Plugin: SQLPlugin, Stores: stores,
		Frontend: free(), FrontendHTTP: free(), FrontendMembership: free(),
		History: free(), HistoryMembership: free(),
		Matching: free(), MatchingMembership: free(),
		Worker: free(), WorkerMembership: free(),
		ServerCert: certs.ServerCertFile, ServerKey: certs.ServerKeyFile, CA: certs.CAFile,
		ClientCert: certs.ClientCertFile, ClientKey: certs.ClientKeyFile,
		DynamicConfig: filepath.Join(tl.root, DynamicConfigFile),
	}
}

// DynamicConfigFile is the dynamic config compose mounts into its server,
// relative to the repository root; the cluster here reads the same file.
const DynamicConfigFile = "deploy/temporal/dynamicconfig.yaml"

// write renders the config as root/config/<env>.yaml, where the server's
// `--root root --config config --env <env>` looks for it.
func (c serverConfig) write(root string) error {
	dir := filepath.Join(root, "config")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("server config dir: %w", err)
	}
	f, err := os.Create(filepath.Join(dir, serverEnv+".yaml"))
	if err != nil {
		return fmt.Errorf("server config: %w", err)
	}
	if err := serverConfigTemplate.Execute(f, c); err != nil {
		f.Close()
		return fmt.Errorf("render the server config: %w", err)
	}
	return f.Close()
}

// port is the port of a host:port the config names.
func port(addr string) (string, error) {
	_, p, err := net.SplitHostPort(addr)
	return p, err
}

// serverEnv names the config file the server loads.
const serverEnv = "agentrun"
