package ranks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pairgossip/pairgossip"
	"github.com/pairgossip/pairgossip/engine"
	"github.com/pairgossip/pairgossip/mpi"
	"github.com/pairgossip/pairgossip/network"
)

// divCase is a run that diverges: a step size constant large enough that
// margins overflow, under no network model ("") or one of netCases.
type divCase struct {
	n     int
	gamma float64
	net   string
}

// divCases diverge at iteration 2 and later, without and under loss and
// churn: z found by the executor, θ̄ found by a measurement, and an
// objective that overflows over a finite θ̄.
var divCases = []divCase{
	{3000, 1e307, ""},
	{3000, 2e307, ""},
	{20000, 1e307, ""},
	{3000, 1e307, "loss+churn"},
	{20000, 1e307, "churn"},
	{20000, 2e307, "loss"},
	{3000, 2e307, "loss+churn"},
	{20000, 7e306, ""},
	{3000, 7e306, ""},
}

func divConfig(c divCase) pairgossip.Config {
	cfg := testConfig(c.n, 3000)
	cfg.GammaC = c.gamma
	return cfg
}

// singleProcessDiv is one process's divergence for c: its iteration and
// node.
func singleProcessDiv(t *testing.T, c divCase) *engine.DivergenceError {
	t.Helper()
	run, err := pairgossip.Prepare(divConfig(c))
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	if m := netCases[c.net]; !m.IsPerfect() {
		run.Sim.Close()
		ecfg := run.Config.EngineConfig()
		ecfg.Network = m
		if run.Sim, err = engine.New(run.Problem, run.Graph, ecfg); err != nil {
			t.Fatal(err)
		}
	}
	if run.Sim.Schedule() != engine.ScheduleReduced {
		t.Fatalf("%v: one process ran %s, want reduced", c, run.Sim.Schedule())
	}
	_, err = run.Execute(context.Background(), nil)
	var de *engine.DivergenceError
	if !errors.As(err, &de) {
		t.Fatalf("%v: one process: %v, want a divergence", c, err)
	}
	return de
}

// TestOneRankDivergence: a run over one rank that diverges names the
// iteration and node one process names.
func TestOneRankDivergence(t *testing.T) {
	later := false
	for _, c := range divCases {
		want := singleProcessDiv(t, c)
		t.Logf("%v: %v", c, want)
		later = later || want.Iter > 2
		r, err := PrepareModel(mpi.Self(), divConfig(c), netCases[c.net])
		if err != nil {
			t.Fatal(err)
		}
		_, err = r.Execute(context.Background(), nil)
		var de *engine.DivergenceError
		if !errors.As(err, &de) {
			t.Fatalf("%v: %v, want a divergence", c, err)
		}
		if *de != *want {
			t.Errorf("%v: %+v; one process: %+v", c, *de, *want)
		}
	}
	if !later {
		t.Error("every case diverged by iteration 2: the cases do not test the blocks")
	}
}

// TestRanksDivergence: as 1 to 4 MPI ranks, every rank reports the
// iteration and node one process names (the lowest node at the earliest
// iteration, whichever rank owns it).
func TestRanksDivergence(t *testing.T) {
	if !mpi.Compiled {
		t.Skip("built without MPI: go test -tags mpi ./ranks runs this test")
	}
	for _, c := range divCases {
		want := singleProcessDiv(t, c)
		for np := 1; np <= 4; np++ {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			cmd, why := mpirunCmd(ctx, np, os.Args[0], "-test.run", "^TestRankDivWorker$", "-test.v")
			if cmd == nil {
				cancel()
				t.Skip(why)
			}
			cmd.Env = append(os.Environ(), fmt.Sprintf("PAIRGOSSIP_DIV_CASE=%d:%g:%s", c.n, c.gamma, c.net))
			out, err := cmd.CombinedOutput()
			cancel()
			if err != nil {
				t.Fatalf("%v, %d ranks: %v\n%s", c, np, err, out)
			}
			line := fmt.Sprintf("diverged: %+v", *want)
			if got := strings.Count(string(out), line); got != np {
				t.Fatalf("%v, %d ranks: %d ranks said %q\n%s", c, np, got, line, out)
			}
		}
		t.Logf("%v: iteration %d, node %d over 1-4 ranks", c, want.Iter, want.Node)
	}
}

// TestRankDivWorker is one rank of TestRanksDivergence.
func TestRankDivWorker(t *testing.T) {
	spec := os.Getenv("PAIRGOSSIP_DIV_CASE")
	if spec == "" {
		t.Skip("a rank of TestRanksDivergence")
	}
	f := strings.SplitN(spec, ":", 3)
	n, _ := strconv.Atoi(f[0])
	g, _ := strconv.ParseFloat(f[1], 64)
	c := divCase{n, g, f[2]}
	comm, err := mpi.Init()
	if err != nil {
		t.Fatal(err)
	}
	var m network.Model
	if c.net != "" {
		m = netCases[c.net]
	}
	r, err := PrepareModel(comm, divConfig(c), m)
	if err != nil {
		fmt.Fprintf(os.Stderr, "rank %d: %v\n", comm.Rank(), err)
		mpi.Abort(3)
	}
	_, err = r.Execute(context.Background(), nil)
	var de *engine.DivergenceError
	if !errors.As(err, &de) {
		fmt.Fprintf(os.Stderr, "rank %d: %v, want a divergence\n", comm.Rank(), err)
		mpi.Abort(3)
	}
	fmt.Printf("rank %d diverged: %+v\n", comm.Rank(), *de)
	if err := comm.Finalize(); err != nil {
		t.Fatal(err)
	}
}
