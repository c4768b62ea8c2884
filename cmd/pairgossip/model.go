package main

import (
	"fmt"
	"github.com/pairgossip/pairgossip/output"
	"io"

	"github.com/pairgossip/pairgossip"
)

// modelFlag is --save-model: alone (or =true) it writes the model into
// --out; --save-model=DIR writes it into DIR.
type modelFlag struct {
	set bool
	dir string
}

func (m *modelFlag) String() string {
	if m == nil || !m.set {
		return "false"
	}
	if m.dir == "" {
		return "true"
	}
	return m.dir
}

func (m *modelFlag) Set(v string) error {
	switch v {
	case "true", "1":
		m.set, m.dir = true, ""
	case "false", "0", "":
		m.set, m.dir = false, ""
	default:
		m.set, m.dir = true, v
	}
	return nil
}

func (m *modelFlag) IsBoolFlag() bool { return true }

const modelUsage = "write the nodes' final models as NumPy files: theta_bar.npy (n×P, θ̄_k of node k in row k;\n" +
	"a d×d matrix flattened row-major) and theta_bar_mean.npy (P), into --out, or into DIR with\n" +
	"--save-model=DIR; the size is said first, and what does not fit the disk is refused"

// saveModel writes the run's model as --save-model asks (cmdRun said its
// size and checked the disk before the run).
func saveModel(run *pairgossip.Run, m modelFlag, out string, stdout, stderr io.Writer) error {
	if !m.set {
		return nil
	}
	dir := m.dir
	if dir == "" {
		dir = out
	}
	mf, err := output.SaveModel(run, dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (%d×%d) and %s (%d)\n", mf.Nodes, mf.Rows, mf.P, mf.Mean, mf.P)
	return nil
}
