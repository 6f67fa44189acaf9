package composecheck

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/compose-spec/compose-go/v2/types"

	approvalsettings "github.com/agentrun/agentrun/approval/settings"
	"github.com/agentrun/agentrun/internal/agentworker"
	"github.com/agentrun/agentrun/internal/config"
	sandboxsettings "github.com/agentrun/agentrun/internal/ghsandbox/cmd/ghsandbox/settings"
)

// Tables are the settings of the programs docker-compose.yml runs, by the
// command that runs them.
func Tables() map[string][]config.Var {
	return map[string][]config.Var{
		"worker":    agentworker.Settings().Vars(),
		"approval":  approvalsettings.Settings().Vars(),
		"ghsandbox": sandboxsettings.Settings().Vars(),
	}
}

// CheckEnvironments compares every service built from this repository with
// the settings table of the program it runs (see CheckEnvironment).
func CheckEnvironments(project *types.Project, tables map[string][]config.Var) error {
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(project.Services)) {
		s := project.Services[name]
		if s.Build == nil {
			continue
		}
		if len(s.Command) == 0 {
			errs = append(errs, fmt.Errorf("service %s: builds this repository but names no program to run", name))
			continue
		}
		vars, ok := tables[s.Command[0]]
		if !ok {
			errs = append(errs, fmt.Errorf("service %s: runs %s, which has no settings table here", name, s.Command[0]))
			continue
		}
		errs = append(errs, CheckEnvironment(s, vars))
	}
	return errors.Join(errs...)
}

// CheckEnvironment holds a service's environment to its program's settings:
// every variable it sets is one the program reads (else it is a typo or a
// leftover, and the file lies about what configures the program), and every
// required setting without a default is set to something.
func CheckEnvironment(s types.ServiceConfig, vars []config.Var) error {
	known := make(map[string]config.Var, len(vars))
	for _, v := range vars {
		known[v.Name] = v
	}
	env := environment(s)
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(env)) {
		if _, ok := known[name]; !ok {
			errs = append(errs, fmt.Errorf("service %s sets %s, which %s does not read (not in its settings table)", s.Name, name, s.Command[0]))
		}
	}
	for _, v := range vars {
		if v.Required && v.Default == "" && env[v.Name] == "" {
			errs = append(errs, fmt.Errorf("service %s does not set %s, which %s requires", s.Name, v.Name, s.Command[0]))
		}
	}
	return errors.Join(errs...)
}

// environment flattens a service's environment; a variable set to nothing
// (`NAME:` or `${NAME:-}`) is the empty string, as the program sees it.
func environment(s types.ServiceConfig) map[string]string {
	env := make(map[string]string, len(s.Environment))
	for key, value := range s.Environment {
		env[key] = ""
		if value != nil {
			env[key] = *value
		}
	}
	return env
}
