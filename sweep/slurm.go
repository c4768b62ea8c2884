package sweep

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

// SlurmOptions describes the job array script.
type SlurmOptions struct {
	Binary      string // absolute path of the pairgossip binary
	SweepFile   string // absolute path of the sweep file
	WorkDir     string // absolute; the job changes into it
	ResultsDir  string // absolute; task databases and logs go here
	Tasks       int    // array tasks (chunks of runs)
	Partition   string
	Time        string // HH:MM:SS, or D-HH:MM:SS
	CPUsPerTask int
	Mem         string   // e.g. 2G (empty: the cluster's default)
	Extra       []string // further #SBATCH arguments, e.g. --account=proj
	PlanHash    string
	Runs        int
	Name        string
}

var timeRE = regexp.MustCompile(`^(\d+-)?\d{1,3}:[0-5]\d:[0-5]\d$`)

// ValidTime reports whether s is a SLURM time limit HH:MM:SS or D-HH:MM:SS.
func ValidTime(s string) bool { return timeRE.MatchString(s) }

// Tasks chooses the number of array tasks: runsPerTask runs per task when
// given, else one task per run up to maxTasks.
func Tasks(runs, runsPerTask, maxTasks int) int {
	if runsPerTask > 0 {
		return (runs + runsPerTask - 1) / runsPerTask
	}
	return max(1, min(runs, maxTasks))
}

// ShellQuote quotes s as one word for a POSIX shell: s itself when it has
// only characters no shell treats specially, else s in single quotes with
// each single quote in it closed, escaped and reopened (the four characters
// quote, backslash, quote, quote). The sbatch script and the commands
// sweep slurm prints use it.
func ShellQuote(s string) string { return shellQuote(s) }

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+=:,@%", r))
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

var jobNameRE = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// ControlChar describes the first control character of s (a newline, a
// carriage return, a tab, or another by its code point), "" when s has
// none. A value with one must not go into a batch script: a newline in an
// #SBATCH line ends the #SBATCH block and starts a command.
func ControlChar(s string) string {
	for _, r := range s {
		if !unicode.IsControl(r) && r != '\u2028' && r != '\u2029' {
			continue
		}
		switch r {
		case '\n':
			return "a newline"
		case '\r':
			return "a carriage return"
		case '\t':
			return "a tab"
		}
		return fmt.Sprintf("the control character %U", r)
	}
	return ""
}

// Check refuses options that would not give the batch script they say:
// a control character in any value (a newline would write a command into
// the script), a results folder that #SBATCH --output cannot name as it is
// (spaces, quotes, backslashes, or % which SLURM replaces), and an extra
// option that is not one (it must start with -). Errors name the flag of
// pairgossip sweep slurm that sets the value.
func (o SlurmOptions) Check() error {
	vals := []struct{ flag, v string }{
		{"--binary", o.Binary}, {"the sweep file", o.SweepFile}, {"the current folder", o.WorkDir},
		{"--results-dir", o.ResultsDir}, {"--partition", o.Partition}, {"--time", o.Time}, {"--mem", o.Mem},
	}
	for _, e := range o.Extra {
		vals = append(vals, struct{ flag, v string }{"--sbatch", e})
	}
	for _, x := range vals {
		if c := ControlChar(x.v); c != "" {
			return fmt.Errorf("%s: %q contains %s: every value goes into the batch script, where it could end the #SBATCH block and start a command", x.flag, x.v, c)
		}
	}
	if i := strings.IndexAny(o.ResultsDir, " '\"\\%"); i >= 0 {
		return fmt.Errorf("--results-dir: SLURM's #SBATCH --output cannot name %q as it is (it has %q; spaces, quotes, backslashes and %% are not accepted)", o.ResultsDir, o.ResultsDir[i:i+1])
	}
	for _, x := range []struct{ flag, v string }{{"--partition", o.Partition}, {"--mem", o.Mem}} {
		if strings.ContainsAny(x.v, " '\"\\") {
			return fmt.Errorf("%s: bad value %q: no spaces, quotes or backslashes", x.flag, x.v)
		}
	}
	for _, e := range o.Extra {
		if !strings.HasPrefix(e, "-") {
			return fmt.Errorf("--sbatch: %q is not an sbatch option (write e.g. --sbatch=--account=proj)", e)
		}
	}
	return nil
}

// SlurmScript renders the sbatch script of a job array: task t runs its
// Share of the sweep into ResultsDir/task-t.db.
func SlurmScript(o SlurmOptions) string {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	name := jobNameRE.ReplaceAllString(o.Name, "-")
	p("#!/bin/bash")
	p("# pairgossip sweep %q: %d runs in %d array tasks (plan %s).", o.Name, o.Runs, o.Tasks, o.PlanHash)
	p("# Written by `pairgossip sweep slurm`. Submit with: sbatch %s", shellQuote(o.ResultsDir+"/sweep.sbatch"))
	p("# Each task writes its own database %s/task-<id>.db; then merge them:", o.ResultsDir)
	p("#   %s sweep merge %s --results %s", shellQuote(o.Binary), shellQuote(o.ResultsDir), shellQuote(o.ResultsDir+"/results.db"))
	p("#SBATCH --job-name=pairgossip-%s", name)
	p("#SBATCH --array=0-%d", o.Tasks-1)
	p("#SBATCH --ntasks=1")
	p("#SBATCH --cpus-per-task=%d", o.CPUsPerTask)
	if o.Time != "" {
		p("#SBATCH --time=%s", o.Time)
	}
	if o.Partition != "" {
		p("#SBATCH --partition=%s", o.Partition)
	}
	if o.Mem != "" {
		p("#SBATCH --mem=%s", o.Mem)
	}
	for _, e := range o.Extra {
		p("#SBATCH %s", e)
	}
	p("#SBATCH --output=%s/logs/task-%%a.out", o.ResultsDir)
	p("#SBATCH --error=%s/logs/task-%%a.out", o.ResultsDir)
	p("")
	p("set -euo pipefail")
	p("export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1")
	p("cd %s", shellQuote(o.WorkDir))
	p("exec %s sweep run %s \\", shellQuote(o.Binary), shellQuote(o.SweepFile))
	p("    --task-id \"$SLURM_ARRAY_TASK_ID\" --tasks %d --results-dir %s \\", o.Tasks, shellQuote(o.ResultsDir))
	p("    --cores \"${SLURM_CPUS_PER_TASK:-%d}\" --plan-hash %s", o.CPUsPerTask, o.PlanHash)
	return b.String()
}
