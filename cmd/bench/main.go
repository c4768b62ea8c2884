// Command bench measures the engine's throughput on random data.
//
// Usage:
//
//	bench async --n N --d D --events E --workers W [--graph G] [--kernel K] [--pin] --json
//	bench metric --n N --d D --iters T --workers W [--schedule auto|reference] [--exact-psd] --json
//	bench e2e   --n N --d D --iters T --workers W --json
//	bench sync  --n N --d D --iters T --workers W [--schedule auto|plain|blocked|reduced] [--kernel auto|generic|avx2|avx512] [--pin] --json
//	mpirun -np P bench mpi --n N | --n-per-rank N --d D --iters T --workers W --json
//	bench tta   [--n 20000,100000,1000000] [--algo sync,async] [--targets 0.10,0.02] [--max-wall D] [--runs R] --json
//
// Each subcommand prints one JSON object (with --json) or a short text
// summary. The same --seed gives the same data, graph and edge stream, so two
// runs do the same work. --kernel picks a kernel implementation (as
// PAIRGOSSIP_KERNEL would), --pin pins the workers (package affinity). Long
// benchmark series live in bench/run.sh.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/internal/benchdata"
	"github.com/pairgossip/pairgossip/internal/cli"
	"github.com/pairgossip/pairgossip/kernel"
	"github.com/pairgossip/pairgossip/problem"
)

func main() { os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr)) }

const usage = `bench measures pairgossip's throughput on random data.

Usage:
  bench sync  --n N --d D --iters T --workers W [--schedule auto|plain|blocked|reduced] [--kernel auto|generic|avx2|avx512] [--pin] --json
                                                          the synchronous round, beside a STREAM-triad probe
  bench async --n N --d D --events E --workers W [--kernel K] [--pin] --json
                                                          asynchronous events: serial loop vs parallel executor
  bench metric --n N --d D --iters T --workers W --json  metric learning (PSD cone) on the synthetic set: ms per round,
                                                          eigendecompositions per round, which LAPACK
  bench e2e --n N --d D --iters T --workers W --json     the whole job of pairgossip run at large n: set-up,
                                                          rounds and measurements timed apart, peak RSS
  mpirun -np P bench mpi --n N | --n-per-rank N --d D --iters T --workers W --json
                                                          the synchronous run over MPI ranks (package ranks; a build
                                                          with -tags mpi): per-rank time, bytes sent per round, RSS
  bench tta [--n LIST] [--algo sync,async] [--targets 0.10,0.02] [--max-wall D] [--runs R] --json
                                                          time to accuracy: synthetic-auc run until its mean objective is
                                                          within each target of the optimum; the cost over the whole horizon
  bench help COMMAND                                      the flags of a command
`

type usageError = cli.UsageError

func realMain(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "async":
		err = cmdAsync(args[1:], stdout, stderr)
	case "metric":
		err = cmdMetric(args[1:], stdout, stderr)
	case "sync":
		err = cmdSync(args[1:], stdout, stderr)
	case "e2e":
		err = cmdE2E(args[1:], stdout, stderr)
	case "mpi":
		err = cmdMPI(args[1:], stdout, stderr)
	case "tta":
		err = cmdTTA(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		if len(args) > 1 {
			return realMain([]string{args[1], "--help"}, stdout, stderr)
		}
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "bench: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintf(stderr, "bench %s: %v\n", args[0], err)
	var ue usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

var (
	newFlagSet = cli.NewFlagSet
	parse      = cli.Parse
)

// randomAUC returns the benchmarks' AUC problem (internal/benchdata).
func randomAUC(n, d int, seed uint64) (*problem.Problem, error) { return benchdata.AUC(n, d, seed) }

// useKernel switches to kernel implementation name unless it is "auto".
func useKernel(name string) error {
	if name == "auto" {
		return nil
	}
	if err := kernel.Use(name); err != nil {
		return usageError{Err: fmt.Errorf("--kernel: %w", err)}
	}
	return nil
}

func buildGraph(kind string, n int, seed uint64) (*graph.Graph, error) {
	spec := graph.Spec{Kind: kind, N: n, K: 5, P: 0.3, Seed: seed}
	g, err := graph.Build(spec)
	if err != nil {
		return nil, usageError{Err: err}
	}
	return g, nil
}

func printJSON(w io.Writer, v any) {
	b, _ := json.MarshalIndent(v, "", "  ")
	fmt.Fprintln(w, string(b))
}

func validSize(n, d int) error {
	if n < 2 {
		return usageError{Err: fmt.Errorf("--n must be >= 2, got %d", n)}
	}
	if d < 1 {
		return usageError{Err: fmt.Errorf("--d must be >= 1, got %d", d)}
	}
	return nil
}
