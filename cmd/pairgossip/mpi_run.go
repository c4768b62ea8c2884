package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/pairgossip/pairgossip/config"
	"github.com/pairgossip/pairgossip/output"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/pairgossip/pairgossip/engine"
	"github.com/pairgossip/pairgossip/internal/atomicfile"
	"github.com/pairgossip/pairgossip/mpi"
	"github.com/pairgossip/pairgossip/ranks"
)

// runOverMPI runs `pairgossip run` as one rank of an MPI job when the
// process was started by an MPI launcher with more than one rank (package
// ranks; docs/mpi.md). It reports whether it handled the command. A build
// without the mpi tag refuses a job of several ranks (each would run the
// whole simulation alone); a job of one rank runs as usual.
func runOverMPI(a *runArgs, stdout, stderr io.Writer) (handled bool, err error) {
	// A checkpoint written over ranks resumes only with as many ranks.
	oneProcess := func() error {
		if a.resume == "" {
			return nil
		}
		if np, ok := ranks.IsManifest(a.resume); ok {
			return usagef("--resume: checkpoint %s was written by %d ranks; this run has 1: resume it with mpirun -np %d (a checkpoint is split by the ranks that wrote it)", a.resume, np, np)
		}
		return nil
	}
	if !mpi.Launched() {
		err := oneProcess()
		return err != nil, err
	}
	comm, err := mpi.Init()
	if err != nil {
		return true, err
	}
	if comm.Size() == 1 {
		if err := oneProcess(); err != nil {
			comm.Finalize()
			return true, err
		}
		return false, comm.Finalize()
	}
	defer comm.Finalize()
	root := comm.Rank() == 0
	if a.model.set {
		// The ranks' θ̄ rows are not gathered into one file yet: refused
		// (by every rank alike) rather than a run that writes no model.
		return true, usagef("--save-model: not available over MPI ranks yet (the model of a run over %d ranks is not gathered into one file); run without --save-model, or as one process", comm.Size())
	}
	if a.cfg.WriteEdges != "" {
		// Each rank resolves only its own edges of a block: refused rather
		// than a stream that one rank could not write whole.
		return true, usagef("--write-edges: not available over MPI ranks (each rank holds only its own edges); run as one process (without mpirun, or with mpirun -np 1)")
	}
	// A network model: loss, one-way loss and churn run over the ranks
	// (bit for bit one process's run); the models that need the whole graph
	// on every rank are refused by ranks.Prepare, naming the flag.
	if a.traceNodes {
		// The nodes' objectives are measured over the ranks and only their
		// statistics reach rank 0: refused rather than a run without nodes.csv.
		return true, usagef("--trace-nodes: not available over MPI ranks yet (each rank measures its own nodes; they are not gathered); run without --trace-nodes, or as one process")
	}
	r, err := ranks.Prepare(comm, a.cfg)
	if err != nil {
		return true, usageError{Err: err}
	}
	// Checkpoints: a manifest at --checkpoint (or --resume) and one file
	// per rank beside it (ranks/checkpoint.go), each rank holding the lock
	// of its files.
	if a.ckpt != "" {
		unlock, err := r.LockCheckpoint(a.ckpt)
		if err != nil {
			return true, usagef("--checkpoint: %v", err)
		}
		defer unlock()
		r.Checkpoint, r.CheckpointEvery = a.ckpt, a.every
	}
	if a.resume != "" {
		if _, err = r.Resume(a.resume); err != nil {
			return true, usageError{Err: err}
		}
		if root {
			fmt.Fprintf(stderr, "resuming from iteration %d of %d over %d ranks (%s)\n", r.Iter(), r.Config.Iters, comm.Size(), a.resume)
		}
	}
	for _, w := range r.Warnings {
		if root {
			fmt.Fprintln(stderr, "warning:", w)
		}
	}
	if root {
		if err := os.MkdirAll(a.out, 0o755); err != nil {
			mpi.Abort(1)
		}
	}
	ctx, stop := notifyContext(context.Background())
	defer stop()
	defer sayStopSignal(stderr, comm.Rank(), comm.Size())()
	t0 := time.Now()
	trace, runErr := r.Execute(ctx, nil)
	wall := time.Since(t0)
	if root && errors.Is(runErr, context.Canceled) && a.ckpt != "" {
		fmt.Fprintf(stderr, "stopped at iteration %d; state saved to %s (and one file per rank beside it); continue with mpirun -np %d … --resume %s\n",
			r.Iter(), a.ckpt, comm.Size(), a.ckpt)
	}
	if runErr != nil && !isDivergence(runErr) && !errors.Is(runErr, context.Canceled) {
		// A failed collective leaves the other ranks waiting: end them all.
		// (A cancellation is agreed on by every rank, the signalled ones
		// and the others alike, which write the trace and exit 128 + the
		// signal's number, 130 where no signal came.)
		fmt.Fprintf(stderr, "pairgossip run: rank %d: %s\n", comm.Rank(), config.FlagMessage(runErr))
		mpi.Abort(1)
	}
	stats, err := gatherRankStats(comm, r, wall)
	if err != nil {
		return true, err
	}
	if !root {
		// Rank 0 writes the outputs and says the outcome; the others wait
		// for it here: a rank that exits non-zero first has mpirun end the
		// job, rank 0 with it, before it has.
		if err := comm.Barrier(); err != nil {
			return true, err
		}
		if runErr != nil {
			// Agreed by every rank (a divergence is found by an
			// Allreduce, a cancellation too): rank 0 said it, once.
			runErr = saidByRoot{runErr}
		}
		return true, runErr
	}
	sum := r.Summary(trace, wall, r.MeasureTime, runErr)
	if runErr != nil {
		sum.Error = config.FlagMessage(runErr) // as one process's summary and stderr say it (--gamma-c)
	}
	if errors.Is(runErr, context.Canceled) {
		sum.Status = "cancelled"
	}
	werr := func() error {
		if err := atomicfile.WriteBytes(filepath.Join(a.out, "trace.csv"), output.TraceCSVNetwork(trace, float64(sum.OptimumObjective), sum.Network != nil)); err != nil {
			return err
		}
		if err := atomicfile.WriteBytes(filepath.Join(a.out, "summary.json"), output.JSON(sum)); err != nil {
			return err
		}
		if err := atomicfile.WriteBytes(filepath.Join(a.out, "mpi.json"), output.JSON(stats)); err != nil {
			return err
		}
		return removeStale(a.earlier, []string{"trace.csv", "summary.json", "mpi.json"}, stderr)
	}()
	if runErr != nil {
		// Said here, before the barrier lets the other ranks end (realMain
		// would say it after, maybe once mpirun has ended this rank).
		if errors.Is(runErr, context.Canceled) {
			fmt.Fprintln(stderr, "pairgossip: interrupted")
		} else {
			fmt.Fprintf(stderr, "pairgossip run: %s\n", config.FlagMessage(runErr))
		}
	}
	if err := comm.Barrier(); err != nil && werr == nil {
		werr = err
	}
	if werr != nil {
		return true, werr
	}
	if runErr != nil {
		return true, saidByRoot{runErr}
	}
	cw := &checkedWriter{w: stdout}
	stdout = cw
	defer func() {
		if cw.err != nil && err == nil {
			err = fmt.Errorf("writing the result to standard output: %w", cw.err)
		}
	}()
	if a.asJSON {
		stdout.Write(output.JSON(sum))
		return true, nil
	}
	fmt.Fprintf(stdout, "%s %s on %s (%d nodes) over %d ranks, %d iterations in %.2fs\n", r.Config.Algorithm, r.Config.Problem,
		r.Config.Graph, sum.Data.N, comm.Size(), sum.Iter, sum.WallSeconds)
	fmt.Fprintf(stdout, "objective mean %.6g (std %.3g) over %d nodes; AUC %.4f; %.0f bytes sent per round per rank (median)\n",
		float64(sum.ObjectiveMean), float64(sum.ObjectiveStd), sum.EvalNodes, float64(sum.AUCMean), stats.MedianBytesPerRound)
	fmt.Fprintf(stdout, "wrote %s, %s and %s\n", filepath.Join(a.out, "trace.csv"), filepath.Join(a.out, "summary.json"), filepath.Join(a.out, "mpi.json"))
	return true, nil
}

// rankStats is mpi.json: each rank's nodes, times and bytes sent.
type rankStats struct {
	Ranks               int        `json:"ranks"`
	Rounds              int64      `json:"rounds"`
	Blocks              int64      `json:"blocks"`
	MedianBytesPerRound float64    `json:"median_bytes_per_round"`
	PerRank             []rankStat `json:"per_rank"`
}

type rankStat struct {
	Rank           int     `json:"rank"`
	Nodes          int     `json:"nodes"`
	WallSeconds    float64 `json:"wall_seconds"`
	RoundSeconds   float64 `json:"round_seconds"`
	MeasureSeconds float64 `json:"measure_seconds"`
	SetupSeconds   float64 `json:"setup_seconds"`
	RecordBytes    int64   `json:"record_bytes"`    // touched records sent (Allgatherv of the blocks)
	BytesSent      int64   `json:"bytes_sent"`      // everything the communicator counted
	BytesPerRound  float64 `json:"bytes_per_round"` // record bytes / rounds
	MaxRSSKiB      int64   `json:"max_rss_kib"`     // VmHWM
}

func gatherRankStats(c mpi.Comm, r *ranks.Run, wall time.Duration) (rankStats, error) {
	rec, all := r.BytesSent()
	rounds := max(r.Iter(), 1)
	mine := []float64{float64(r.Hi() - r.Lo()), wall.Seconds(), r.RoundTime.Seconds(), r.MeasureTime.Seconds(), r.Setup.Total().Seconds(),
		float64(rec), float64(all.Bytes()), float64(vmHWM())}
	const w = 8
	counts := make([]int, c.Size())
	for i := range counts {
		counts[i] = w
	}
	out := make([]float64, w*c.Size())
	if err := c.AllgathervFloat64(mine, counts, out); err != nil {
		return rankStats{}, err
	}
	st := rankStats{Ranks: c.Size(), Rounds: r.Iter(), Blocks: r.Blocks}
	per := make([]float64, 0, c.Size())
	for q := 0; q < c.Size(); q++ {
		v := out[q*w : (q+1)*w]
		s := rankStat{Rank: q, Nodes: int(v[0]), WallSeconds: v[1], RoundSeconds: v[2], MeasureSeconds: v[3], SetupSeconds: v[4],
			RecordBytes: int64(v[5]), BytesSent: int64(v[6]), BytesPerRound: v[5] / float64(rounds), MaxRSSKiB: int64(v[7])}
		st.PerRank = append(st.PerRank, s)
		per = append(per, s.BytesPerRound)
	}
	st.MedianBytesPerRound = median(per)
	return st, nil
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// vmHWM returns this process's peak resident set in KiB (VmHWM of
// /proc/self/status; 0 where there is none).
func vmHWM() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	var kib int64
	for _, line := range splitLines(string(b)) {
		if _, err := fmt.Sscanf(line, "VmHWM: %d kB", &kib); err == nil {
			return kib
		}
	}
	return 0
}

func splitLines(s string) []string {
	var out []string
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] != '\n' {
			i++
		}
		out = append(out, s[:i])
		if i < len(s) {
			i++
		}
		s = s[i:]
	}
	return out
}

// saidByRoot is an outcome every rank of a job agreed on (a divergence, a
// cancellation) on a rank other than 0: rank 0 writes it to stderr and
// summary.json, and the others exit with the same status without
// repeating it once per rank.
type saidByRoot struct{ err error }

func (s saidByRoot) Error() string { return s.err.Error() }
func (s saidByRoot) Unwrap() error { return s.err }

func isDivergence(err error) bool {
	var de *engine.DivergenceError
	return errors.As(err, &de)
}

// sayStopSignal makes a rank say, when a signal stops it, which rank it is
// and why it may have come: mpirun sends SIGTERM to every rank when one of
// them dies (or the job is cancelled), and without this the job's output
// holds only mpirun's message about the rank that died. It returns the
// function that stops listening.
func sayStopSignal(stderr io.Writer, rank, size int) func() {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, stopSignals...)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			why := "the job was interrupted"
			if s == syscall.SIGTERM {
				why = "mpirun sends it to every rank when one of them dies (its message names the rank) or when the job is cancelled"
			}
			fmt.Fprintf(stderr, "pairgossip run: rank %d of %d: stopping on %v: %s\n", rank, size, s, why)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
	}
}
