package composecheck

import (
	"maps"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/types"
	"github.com/stretchr/testify/require"
)

func TestComposeRunsTheWholeStack(t *testing.T) {
	project := mustLoadCompose(t, nil)

	require.Subset(t, slices.Collect(maps.Keys(project.Services)),
		[]string{"postgres", serviceTemporal, serviceTemporalSetup, serviceTemporalUI, serviceWorker, serviceApproval})
	require.Equal(t, []string{"sandbox"}, service(t, project, serviceSandbox).Profiles,
		"the fake GitHub runs only when asked for")
	require.Contains(t, service(t, project, serviceTemporal).Image, "temporalio/auto-setup:")
	require.Equal(t, "postgres12", environment(service(t, project, serviceTemporal))["DB"], "Temporal persists to Postgres")
}

func TestComposeRefusesToStartWithoutTheApprovalSecrets(t *testing.T) {
	for name := range requiredEnv {
		t.Run(name, func(t *testing.T) {
			env := maps.Clone(requiredEnv)
			delete(env, name)

			_, err := loadCompose(t, env)

			require.ErrorContains(t, err, name)
		})
	}
}

func TestEveryServiceRunsAPinnedImageOrABuildOfThisRepository(t *testing.T) {
	project := mustLoadCompose(t, nil)
	root := repoModule(t).Root

	for _, s := range project.Services {
		if s.Build != nil {
			require.Equal(t, root, s.Build.Context, "service %s builds this repository", s.Name)
			require.FileExists(t, filepath.Join(s.Build.Context, s.Build.Dockerfile), "service %s", s.Name)
			continue
		}
		require.NoError(t, CheckPinned(s.Image), "service %s", s.Name)
	}
}

func TestTemporalImagesAreOfOneServerRelease(t *testing.T) {
	project := mustLoadCompose(t, nil)

	server := ParseImageRef(service(t, project, serviceTemporal).Image).Tag
	tools := ParseImageRef(service(t, project, serviceTemporalSetup).Image)

	require.Equal(t, "temporalio/admin-tools", tools.Repository)
	require.True(t, tools.Tag == server || strings.HasPrefix(tools.Tag, server+"-"),
		"admin-tools %s must match the server %s", tools.Tag, server)
}

func TestEveryLongRunningServiceHasAHealthcheck(t *testing.T) {
	project := mustLoadCompose(t, nil)

	for _, s := range project.Services {
		if isOneShot(s) {
			continue
		}
		require.NotNil(t, s.HealthCheck, "service %s has no healthcheck", s.Name)
		require.False(t, s.HealthCheck.Disable, "service %s disables its healthcheck", s.Name)
		require.Greater(t, len(s.HealthCheck.Test), 1, "service %s has an empty healthcheck", s.Name)
		require.Contains(t, []string{"CMD", "CMD-SHELL"}, s.HealthCheck.Test[0], "service %s", s.Name)
	}
}

func TestDependenciesWaitForHealthOrCompletion(t *testing.T) {
	project := mustLoadCompose(t, nil)

	for _, s := range project.Services {
		for name, dependency := range s.DependsOn {
			target := service(t, project, name)
			switch dependency.Condition {
			case types.ServiceConditionHealthy:
				require.NotNil(t, target.HealthCheck, "%s waits for %s to be healthy, which has no healthcheck", s.Name, name)
			case types.ServiceConditionCompletedSuccessfully:
				require.True(t, isOneShot(target), "%s waits for %s to complete, which restarts", s.Name, name)
			default:
				require.Failf(t, "dependency only waits for the start", "%s depends on %s with condition %q",
					s.Name, name, dependency.Condition)
			}
		}
	}
	require.Contains(t, service(t, project, serviceTemporal).DependsOn, "postgres")
	for _, name := range []string{serviceWorker, serviceApproval, serviceTemporalUI, serviceTemporalSetup} {
		require.Contains(t, service(t, project, name).DependsOn, serviceTemporal, "service %s", name)
	}
}

func TestWorkersStartOnlyOnceTheSearchAttributesAreRegistered(t *testing.T) {
	project := mustLoadCompose(t, nil)
	root := repoModule(t).Root
	setup := service(t, project, serviceTemporalSetup)

	require.Equal(t, types.ServiceConditionCompletedSuccessfully,
		service(t, project, serviceWorker).DependsOn[serviceTemporalSetup].Condition)
	require.True(t, isOneShot(setup))
	script := mountedFile(t, setup, filepath.Join(root, "deploy", "temporal-setup.sh"))
	require.Contains(t, setup.Entrypoint, script, "temporal-setup runs the mounted script")
	require.FileExists(t, filepath.Join(root, "deploy", "temporal-setup.sh"))
}

func TestWorkerScalesOut(t *testing.T) {
	worker := service(t, mustLoadCompose(t, nil), serviceWorker)

	require.Empty(t, worker.ContainerName, "replicas cannot share a container name")
	for _, port := range worker.Ports {
		require.Empty(t, port.Published, "replicas cannot share host port %s", port.Published)
	}
	require.LessOrEqual(t, worker.GetScale(), 1, "the scale is chosen with --scale, not fixed in the file")
}

func TestServersListenOnAllInterfacesAndPublishTheirPorts(t *testing.T) {
	project := mustLoadCompose(t, nil)

	for _, name := range []string{serviceApproval, serviceSandbox} {
		s := service(t, project, name)
		for variable, addr := range listenAddresses(t, s) {
			require.Contains(t, []string{"", "0.0.0.0", "::"}, addr.host,
				"service %s listens on %s=%q, which other containers and the host cannot reach", name, variable, addr.host)
			requirePublished(t, s, addr.port)
		}
	}
	requirePublished(t, service(t, project, serviceTemporal), 7233)
	requirePublished(t, service(t, project, serviceTemporalUI), 8080)
}

func TestUnauthenticatedServicesArePublishedToThisHostOnly(t *testing.T) {
	project := mustLoadCompose(t, nil)

	for _, name := range []string{serviceTemporal, serviceTemporalUI, serviceSandbox} {
		for _, port := range service(t, project, name).Ports {
			require.Equal(t, "127.0.0.1", port.HostIP, "service %s publishes port %d beyond this host", name, port.Target)
		}
	}
}

// The pages and the API are for this host's login proxy and callers; only
// the webhook, on its own listener, is published beyond it.
func TestApprovalPublishesOnlyItsWebhookBeyondThisHost(t *testing.T) {
	approval := service(t, mustLoadCompose(t, nil), serviceApproval)
	addrs := listenAddresses(t, approval)
	main, webhook, metrics := addrs["APPROVAL_ADDR"], addrs["APPROVAL_WEBHOOK_ADDR"], addrs["METRICS_ADDR"]
	require.NotZero(t, webhook.port, "the webhook has a listener of its own")
	require.NotEqual(t, main.port, webhook.port)

	for _, port := range approval.Ports {
		switch int(port.Target) {
		case main.port:
			require.Equal(t, "127.0.0.1", port.HostIP, "the pages and API must not be published beyond this host")
		case metrics.port:
			require.Equal(t, "127.0.0.1", port.HostIP, "/metrics has no authentication: this host only")
		case webhook.port:
			require.Empty(t, port.HostIP, "GitHub must reach the webhook")
		default:
			require.Failf(t, "unexpected port", "approval publishes port %d, which it does not listen on", port.Target)
		}
	}
	requirePublished(t, approval, main.port)
	requirePublished(t, approval, webhook.port)
}

func TestHealthchecksProbeWhatTheProgramsServe(t *testing.T) {
	project := mustLoadCompose(t, nil)
	m := repoModule(t)
	programs := builtPrograms(t)
	probe := regexp.MustCompile(`http://127\.0\.0\.1:(\d+)(/\S*)`)

	for _, name := range []string{serviceApproval, serviceSandbox} {
		s := service(t, project, name)
		match := probe.FindStringSubmatch(healthcheckCommand(s))
		require.NotNil(t, match, "service %s: the healthcheck must GET one of its endpoints", name)
		port := listenAddresses(t, s)[mainAddr[name]].port
		require.Equal(t, strconv.Itoa(port), match[1], "service %s probes another port than it listens on", name)
		program, err := m.LoadProgram(programs[s.Command[0]])
		require.NoError(t, err)
		require.True(t, program.Strings["GET "+match[2]], "service %s probes %s, which %s does not serve", name, match[2], s.Command[0])
	}

	// The worker serves nothing: it is healthy while connected to Temporal.
	worker := service(t, project, serviceWorker)
	_, temporalPort, err := net.SplitHostPort(environment(worker)["TEMPORAL_ADDRESS"])
	require.NoError(t, err)
	require.Contains(t, healthcheckCommand(worker), ":"+temporalPort+" ")
	require.Contains(t, healthcheckCommand(worker), "ESTABLISHED")

	require.Contains(t, healthcheckCommand(service(t, project, "postgres")), "pg_isready")
	require.Contains(t, healthcheckCommand(service(t, project, serviceTemporal)), "temporal operator")
	require.Contains(t, healthcheckCommand(service(t, project, serviceTemporalUI)), "/healthz")
}

func TestTemporalUIIsReadyForACodecServer(t *testing.T) {
	ui := service(t, mustLoadCompose(t, map[string]string{"TEMPORAL_CODEC_ENDPOINT": "http://localhost:8888"}), serviceTemporalUI)

	require.Equal(t, "http://localhost:8888", environment(ui)["TEMPORAL_CODEC_ENDPOINT"])
	require.Contains(t, environment(service(t, mustLoadCompose(t, nil), serviceTemporalUI)), "TEMPORAL_CODEC_ENDPOINT",
		"set, if empty, without a codec server")
}

func TestTemporalDynamicConfigIsMountedWhereTheServerReadsIt(t *testing.T) {
	temporal := service(t, mustLoadCompose(t, nil), serviceTemporal)
	source := filepath.Join(repoModule(t).Root, "deploy", "temporal", "dynamicconfig.yaml")

	target := mountedFile(t, temporal, source)

	// auto-setup runs in /etc/temporal and takes the path relative to it.
	require.Equal(t, target, filepath.Join("/etc/temporal", environment(temporal)["DYNAMIC_CONFIG_FILE_PATH"]))
	_, err := os.Stat(source)
	require.NoError(t, err)
}

// mainAddr names each server's main listen variable.
var mainAddr = map[string]string{serviceApproval: "APPROVAL_ADDR", serviceSandbox: "SANDBOX_ADDR"}

type hostPort struct {
	host string
	port int
}

// listenAddresses are the service's *_ADDR variables, parsed.
func listenAddresses(t *testing.T, s types.ServiceConfig) map[string]hostPort {
	t.Helper()
	addrs := make(map[string]hostPort)
	for key, value := range environment(s) {
		if !strings.HasSuffix(key, "_ADDR") {
			continue
		}
		host, port, err := net.SplitHostPort(value)
		require.NoError(t, err, "service %s: %s=%q", s.Name, key, value)
		n, err := strconv.Atoi(port)
		require.NoError(t, err)
		addrs[key] = hostPort{host: host, port: n}
	}
	require.NotEmpty(t, addrs, "service %s sets no *_ADDR variable", s.Name)
	return addrs
}

func requirePublished(t *testing.T, s types.ServiceConfig, target int) {
	t.Helper()
	require.True(t, slices.ContainsFunc(s.Ports, func(p types.ServicePortConfig) bool {
		return int(p.Target) == target && p.Published != ""
	}), "service %s must publish its port %d", s.Name, target)
}

// mountedFile is where the service mounts the file source, read-only.
func mountedFile(t *testing.T, s types.ServiceConfig, source string) string {
	t.Helper()
	for _, v := range s.Volumes {
		if v.Type == types.VolumeTypeBind && v.Source == source {
			require.True(t, v.ReadOnly, "service %s mounts %s writable", s.Name, source)
			return v.Target
		}
	}
	require.Failf(t, "not mounted", "service %s does not mount %s", s.Name, source)
	return ""
}
