package composecheck

import (
	"bufio"
	"fmt"
	"strings"
)

// Dockerfile is a parsed Dockerfile: its build stages, in order.
type Dockerfile struct {
	Stages []Stage
}

// Stage is one FROM and the instructions under it.
type Stage struct {
	Image        string // the FROM image reference
	Name         string // the AS name, if any
	Instructions []Instruction
}

// Instruction is one instruction, its continuation lines joined.
type Instruction struct {
	Command string // upper case: RUN, ENV, USER...
	Args    string
	Line    int // where it starts
}

// ParseDockerfile splits a Dockerfile into stages. It knows the syntax the
// checks need (comments, line continuations, FROM ... AS name), not every
// corner of the format.
func ParseDockerfile(text string) (Dockerfile, error) {
	var d Dockerfile
	instructions, err := splitInstructions(text)
	if err != nil {
		return Dockerfile{}, err
	}
	for _, in := range instructions {
		if in.Command == "FROM" {
			stage, err := parseFrom(in)
			if err != nil {
				return Dockerfile{}, err
			}
			d.Stages = append(d.Stages, stage)
			continue
		}
		if len(d.Stages) == 0 {
			if in.Command != "ARG" {
				return Dockerfile{}, fmt.Errorf("line %d: %s before the first FROM", in.Line, in.Command)
			}
			continue
		}
		last := &d.Stages[len(d.Stages)-1]
		last.Instructions = append(last.Instructions, in)
	}
	if len(d.Stages) == 0 {
		return Dockerfile{}, fmt.Errorf("no FROM")
	}
	return d, nil
}

func splitInstructions(text string) ([]Instruction, error) {
	var (
		instructions []Instruction
		pending      strings.Builder
		start        int
	)
	scanner := bufio.NewScanner(strings.NewReader(text))
	for line := 1; scanner.Scan(); line++ {
		trimmed := strings.TrimSpace(scanner.Text())
		if strings.HasPrefix(trimmed, "#") || (trimmed == "" && pending.Len() == 0) {
			continue
		}
		if pending.Len() == 0 {
			start = line
		}
		body, continues := strings.CutSuffix(trimmed, `\`)
		pending.WriteString(body)
		pending.WriteString(" ")
		if continues {
			continue
		}
		command, args, _ := strings.Cut(strings.TrimSpace(pending.String()), " ")
		instructions = append(instructions, Instruction{
			Command: strings.ToUpper(command),
			Args:    strings.Join(strings.Fields(args), " "),
			Line:    start,
		})
		pending.Reset()
	}
	if err := scanner.Err(); err != nil {
		return nil, fmt.Errorf("read the Dockerfile: %w", err)
	}
	if pending.Len() > 0 {
		return nil, fmt.Errorf("line %d: continuation runs past the end of the file", start)
	}
	return instructions, nil
}

func parseFrom(in Instruction) (Stage, error) {
	var fields []string
	for _, f := range strings.Fields(in.Args) {
		if !strings.HasPrefix(f, "--") { // --platform=...
			fields = append(fields, f)
		}
	}
	switch {
	case len(fields) == 1:
		return Stage{Image: fields[0]}, nil
	case len(fields) == 3 && strings.EqualFold(fields[1], "AS"):
		return Stage{Image: fields[0], Name: fields[2]}, nil
	}
	return Stage{}, fmt.Errorf("line %d: cannot read FROM %s", in.Line, in.Args)
}

// All returns the arguments of every instruction of the command.
func (s Stage) All(command string) []string {
	var args []string
	for _, in := range s.Instructions {
		if in.Command == command {
			args = append(args, in.Args)
		}
	}
	return args
}

// Env is the stage's ENV settings (KEY=VALUE form, or the old KEY VALUE form).
func (s Stage) Env() map[string]string {
	env := make(map[string]string)
	for _, args := range s.All("ENV") {
		if key, value, ok := strings.Cut(args, " "); ok && !strings.Contains(key, "=") {
			env[key] = value
			continue
		}
		for _, pair := range strings.Fields(args) {
			if key, value, ok := strings.Cut(pair, "="); ok {
				env[key] = strings.Trim(value, `"`)
			}
		}
	}
	return env
}

// User is the stage's last USER, or "" if it sets none (root).
func (s Stage) User() string {
	users := s.All("USER")
	if len(users) == 0 {
		return ""
	}
	return users[len(users)-1]
}

// GoBuild returns the arguments after "go build" of the stage's RUN that
// builds, or false if it has none. Its words must need no shell quoting.
func (s Stage) GoBuild() ([]string, bool) {
	for _, run := range s.All("RUN") {
		if _, rest, ok := strings.Cut(run, "go build "); ok {
			return strings.Fields(rest), true
		}
	}
	return nil, false
}
