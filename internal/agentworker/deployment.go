package agentworker

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"go.temporal.io/sdk/worker"

	"github.com/agentrun/agentrun/internal/config"
)

// Versioning modes AGENT_VERSIONING accepts.
const (
	// VersioningPinned makes the worker one version of a Worker Deployment,
	// and every AgentRun it starts stays on that version until it ends.
	VersioningPinned = "pinned"
	// VersioningOff is the unversioned worker: every run's next task goes to
	// whichever worker polls, so it replays on the newest code.
	VersioningOff = "off"
)

// DefaultVersioning is off for a laptop and the tests, where one build runs
// at a time. Production runs pinned (docker-compose.yml sets it): pinning
// keeps a waiting run on the build that started it, and needs a worker of
// that build until its runs end (docs/operations.md).
const DefaultVersioning = VersioningOff

// Promotion modes AGENT_PROMOTE accepts: who makes a pinned build the
// deployment's current version, the one new runs start on.
const (
	// PromoteFirst makes a build current only when its deployment has never
	// had a current version; every later build waits for the operator.
	PromoteFirst = "first"
	// PromoteOnStart makes each build current once it polls, if the open
	// runs that promotion moves onto it replay on it (PromoteAfterReplay).
	PromoteOnStart = "on-start"
)

// DefaultPromote leaves every rollout after the first to the operator.
const DefaultPromote = PromoteFirst

// DefaultDeploymentName is the Worker Deployment when AGENT_DEPLOYMENT_NAME is unset.
const DefaultDeploymentName = "agentrun"

// maxDeploymentField is the server's limit on a deployment name and on a
// build ID.
const maxDeploymentField = 255

// Deployment is the Worker Deployment Version a worker polls as
// (AGENT_VERSIONING, AGENT_DEPLOYMENT_NAME, AGENT_BUILD_ID). The zero value
// is an unversioned worker.
type Deployment struct {
	// Pinned turns versioning on: AgentRun is registered pinned, so a run
	// that waits a day for approval finishes on the code that started it.
	Pinned bool
	// Name is the Worker Deployment: every build of agentrun that serves the
	// same task queue shares it.
	Name string
	// BuildID tells this build from the others; see BuildID.
	BuildID string
	// PromoteOnStart is AGENT_PROMOTE=on-start: the build makes itself
	// current at start, after a replay check (PromoteAfterReplay).
	PromoteOnStart bool
}

// deploymentSettings are the versioning variables. Each one set is checked
// even when versioning is off, so that a bad value fails the deploy that sets
// it rather than the later one that turns versioning on.
func deploymentSettings() []config.Setting[Config] {
	return []config.Setting[Config]{
		{Name: "AGENT_VERSIONING", Default: DefaultVersioning, Description: "pinned: one version of a Worker Deployment, each run stays on the build that started it; off: unversioned",
			Parse: parseVersioning},
		{Name: "AGENT_DEPLOYMENT_NAME", Default: DefaultDeploymentName, Description: "the Worker Deployment every build of this worker belongs to; no dot",
			Parse: parseDeploymentName},
		{Name: "AGENT_PROMOTE", Default: DefaultPromote, Description: "with pinned: first: a build makes itself current only as its deployment's first version; on-start: every build does once it polls, if a sample of the open runs it would take over replays on it",
			Parse: parsePromote},
		{Name: "AGENT_BUILD_ID", Description: "this build's ID within the deployment; default the binary's git revision, module version or digest",
			Parse: func(c *Config, v string) error { c.Deployment.BuildID = v; return checkDeploymentField(v) }},
	}
}

func parseVersioning(c *Config, v string) error {
	if v != VersioningPinned && v != VersioningOff {
		return fmt.Errorf("%q is neither %s nor %s", v, VersioningPinned, VersioningOff)
	}
	c.Deployment.Pinned = v == VersioningPinned
	return nil
}

func parsePromote(c *Config, v string) error {
	if v != PromoteFirst && v != PromoteOnStart {
		return fmt.Errorf("%q is neither %s nor %s", v, PromoteFirst, PromoteOnStart)
	}
	c.Deployment.PromoteOnStart = v == PromoteOnStart
	return nil
}

func parseDeploymentName(c *Config, v string) error {
	c.Deployment.Name = v
	if err := checkDeploymentField(v); err != nil {
		return err
	}
	// The server joins the two as name.buildID in older APIs; a dot in the
	// name would make that ambiguous, so it refuses one.
	if strings.Contains(v, ".") {
		return fmt.Errorf("%q contains a dot, which Temporal reserves", v)
	}
	return nil
}

// finishDeployment leaves an unversioned worker the zero Deployment, and
// works out a pinned one's build ID from the binary only when none is set.
func finishDeployment(d *Deployment) error {
	if !d.Pinned {
		*d = Deployment{}
		return nil
	}
	if d.BuildID != "" {
		return nil
	}
	id, err := BuildID()
	if err != nil {
		return fmt.Errorf("AGENT_BUILD_ID: unset, and this binary's own could not be worked out: %w", err)
	}
	d.BuildID = id
	return nil
}

func checkDeploymentField(v string) error {
	if err := config.NoWhitespace(v); err != nil {
		return err
	}
	if len(v) > maxDeploymentField {
		return fmt.Errorf("%d bytes, more than Temporal's %d", len(v), maxDeploymentField)
	}
	return nil
}

// BuildID is this binary's build ID when AGENT_BUILD_ID does not set one:
// what BuildIDFromInfo finds in its build info, or else a digest of the
// executable, which differs whenever the code does.
func BuildID() (string, error) {
	info, _ := debug.ReadBuildInfo()
	if id := BuildIDFromInfo(info); id != "" {
		return id, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the executable to digest: %w", err)
	}
	return executableDigest(exe)
}

// BuildIDFromInfo is the VCS revision the go command stamped into the binary,
// with "+dirty" when the tree had uncommitted changes, or else the module
// version of a `go install …@version`. It is empty when the build info has
// neither: a build outside a git checkout (a Docker build without .git) or
// with -buildvcs=false.
func BuildIDFromInfo(info *debug.BuildInfo) string {
	if info == nil {
		return ""
	}
	var revision string
	var modified bool
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	switch {
	case revision != "" && modified:
		return revision + "+dirty"
	case revision != "":
		return revision
	case info.Main.Version != "" && info.Main.Version != "(devel)":
		return info.Main.Version
	}
	return ""
}

// executableDigest names a build by its bytes: a reproducible build of the
// same code gets the same ID, and any change to the code another.
func executableDigest(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("open the executable to digest: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("digest the executable %s: %w", path, err)
	}
	return "sha256-" + hex.EncodeToString(h.Sum(nil))[:16], nil
}

// version is d as the SDK takes it; the zero version for an unversioned worker.
func (d Deployment) version() worker.WorkerDeploymentVersion {
	if !d.Pinned {
		return worker.WorkerDeploymentVersion{}
	}
	return worker.WorkerDeploymentVersion{DeploymentName: d.Name, BuildID: d.BuildID}
}
