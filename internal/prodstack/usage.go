package prodstack

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agentrun/agentrun/internal/e2e"
)

// Usage is what the engine has spent since it started: the transactions
// PostgreSQL committed and the WAL it wrote, across every database, and the
// CPU time of the Temporal server's process and of PostgreSQL's (the
// postmaster, its live backends and those it has reaped).
type Usage struct {
	Commits     int64
	WALBytes    int64
	ServerCPU   time.Duration
	DatabaseCPU time.Duration
}

// Since is what was spent between earlier and u.
func (u Usage) Since(earlier Usage) Usage {
	return Usage{
		Commits:     u.Commits - earlier.Commits,
		WALBytes:    u.WALBytes - earlier.WALBytes,
		ServerCPU:   u.ServerCPU - earlier.ServerCPU,
		DatabaseCPU: u.DatabaseCPU - earlier.DatabaseCPU,
	}
}

// Plus is u and more together.
func (u Usage) Plus(more Usage) Usage {
	return Usage{
		Commits:     u.Commits + more.Commits,
		WALBytes:    u.WALBytes + more.WALBytes,
		ServerCPU:   u.ServerCPU + more.ServerCPU,
		DatabaseCPU: u.DatabaseCPU + more.DatabaseCPU,
	}
}

// EngineCPU is the server's and the database's CPU together.
func (u Usage) EngineCPU() time.Duration { return u.ServerCPU + u.DatabaseCPU }

// usageQuery reads the committed transactions of every database
// (pg_stat_database, which a backend updates when it reports its
// statistics, at most a second after its transaction on a busy backend) and
// the WAL position in bytes.
const usageQuery = `SELECT sum(xact_commit)::bigint, pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint FROM pg_stat_database`

// Usage reads what the engine has spent so far. The reading itself is one
// more committed transaction, which it leaves out.
func (c *Cluster) Usage(ctx context.Context) (Usage, error) {
	pg := c.postgres
	res, err := e2e.RunCommand(ctx, pg.psql, map[string]string{"PGPASSWORD": postgresPassword},
		"-h", pg.Host, "-p", strconv.Itoa(pg.Port), "-U", postgresRole, "-d", "postgres", "-At", "-F", " ", "-c", usageQuery)
	if err != nil {
		return Usage{}, fmt.Errorf("read the database's usage: %w", err)
	}
	if res.ExitCode != 0 {
		return Usage{}, fmt.Errorf("read the database's usage: psql exited %d: %s", res.ExitCode, strings.TrimSpace(res.Stderr))
	}
	var u Usage
	if _, err := fmt.Sscan(strings.TrimSpace(res.Stdout), &u.Commits, &u.WALBytes); err != nil {
		return Usage{}, fmt.Errorf("read the database's usage from %q: %w", res.Stdout, err)
	}
	u.Commits-- // this reading's own
	if u.ServerCPU, err = processCPU(c.server.proc.Pid(), false); err != nil {
		return Usage{}, err
	}
	if u.DatabaseCPU, err = processCPU(pg.proc.Pid(), true); err != nil {
		return Usage{}, err
	}
	return u, nil
}

// clockTicks is the kernel's USER_HZ, in which /proc reports CPU times: 100
// on every Linux architecture Go supports.
const clockTicks = 100

// processCPU is a process's user and system time from /proc; withChildren
// adds that of its reaped children and of its live ones (PostgreSQL's
// backends are the postmaster's children).
func processCPU(pid int, withChildren bool) (time.Duration, error) {
	fields, err := statFields(pid)
	if err != nil {
		return 0, err
	}
	// After the command's closing parenthesis: field 14 of stat(5) is
	// fields[11] here (utime), then stime, cutime and cstime.
	n := 2
	if withChildren {
		n = 4
	}
	var ticks int64
	for _, f := range fields[11 : 11+n] {
		v, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("CPU time of process %d: %w", pid, err)
		}
		ticks += v
	}
	if withChildren {
		children, err := childrenOf(pid)
		if err != nil {
			return 0, err
		}
		for _, child := range children {
			cpu, err := processCPU(child, false)
			if err != nil {
				continue // it exited since the listing; its parent reaps its time
			}
			ticks += int64(cpu / (time.Second / clockTicks))
		}
	}
	return time.Duration(ticks) * (time.Second / clockTicks), nil
}

// statFields are the fields of /proc/<pid>/stat after the command name,
// which may itself hold spaces.
func statFields(pid int) ([]string, error) {
	raw, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return nil, fmt.Errorf("CPU time of process %d: %w", pid, err)
	}
	s := string(raw)
	end := strings.LastIndexByte(s, ')')
	if end < 0 {
		return nil, fmt.Errorf("CPU time of process %d: unreadable stat %q", pid, s)
	}
	fields := strings.Fields(s[end+1:])
	if len(fields) < 15 {
		return nil, fmt.Errorf("CPU time of process %d: short stat %q", pid, s)
	}
	return fields, nil
}

// childrenOf lists the live processes whose parent is pid.
func childrenOf(pid int) ([]int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	var out []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		fields, err := statFields(child)
		if err != nil {
			continue
		}
		if fields[1] == strconv.Itoa(pid) { // the field after the state is the parent's pid
			out = append(out, child)
		}
	}
	return out, nil
}
