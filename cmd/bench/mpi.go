package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/pairgossip/pairgossip"
	"github.com/pairgossip/pairgossip/mpi"
	"github.com/pairgossip/pairgossip/ranks"
)

// cmdMPI is `bench mpi`: the synchronous simulation over the ranks of an
// MPI job (package ranks), one run, timed per rank. Started by mpirun (a
// build with -tags mpi) it runs as that many ranks; started alone, as one
// rank (the same code, communicator Self): the baseline of the scaling
// figures. Rank 0 prints the result.
func cmdMPI(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("mpi", "bench mpi: pairgossip run --data synthetic-auc --n N --dim D --graph G --algo sync --iters T\n"+
		"--no-optimum over the ranks of the MPI job it runs in (mpirun -np P bench mpi …; a build with -tags mpi),\n"+
		"or as one rank when started alone: per-rank nodes, set-up, round, communication and measurement time,\n"+
		"touched-record bytes sent per round, peak resident memory (VmHWM). --n-per-rank N sets n = N·P (weak scaling).", stderr)
	n := fs.Int("n", 1_000_000, "nodes (one synthetic-auc point each)")
	perRank := fs.Int("n-per-rank", 0, "nodes per rank (n = this × ranks; overrides --n)")
	d := fs.Int("d", 16, "dimension")
	iters := fs.Int64("iters", 2000, "synchronous rounds")
	workers := fs.Int("workers", 1, "workers per rank")
	kind := fs.String("graph", "watts-strogatz", "graph")
	seed := fs.Uint64("seed", 1, "seed of the data, graph and edge stream")
	logPoints := fs.Int("log-points", 2, "measurements (log-spaced; the last at --iters)")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := parse(fs, args); err != nil {
		return err
	}
	c, err := mpi.Init()
	if err != nil {
		return err
	}
	defer c.Finalize()
	P := c.Size()
	if *perRank > 0 {
		*n = *perRank * P
	}
	if err := validSize(*n, *d); err != nil {
		return err
	}
	cfg := pairgossip.DefaultConfig()
	cfg.Data, cfg.N, cfg.Dim, cfg.Graph = "synthetic-auc", *n, *d, *kind
	cfg.Algorithm, cfg.Iters, cfg.SkipOptimum = "sync", *iters, true
	cfg.Seed, cfg.DataSeed, cfg.GraphSeed = *seed, *seed, *seed
	cfg.Workers, cfg.LogPoints, cfg.Measure = *workers, *logPoints, "sampled"
	t0, c0 := time.Now(), processCPU()
	r, err := ranks.Prepare(c, cfg)
	if err != nil {
		return usageError{Err: err}
	}
	setup, setupCPU := time.Since(t0), (processCPU() - c0).Seconds()
	t1 := time.Now()
	trace, err := r.Execute(context.Background(), nil)
	if err != nil {
		mpi.Abort(1)
	}
	wall := time.Since(t1)
	rec, all := r.BytesSent()
	mine := []float64{float64(r.Hi() - r.Lo()), setup.Seconds(), wall.Seconds(), r.RoundTime.Seconds(), r.CommTime().Seconds(),
		r.MeasureTime.Seconds(), float64(rec), float64(all.Bytes()), float64(peakRSS()), r.Setup.Data.Seconds(), r.Setup.Graph.Seconds(), setupCPU}
	const w = 12
	counts := make([]int, P)
	for q := range counts {
		counts[q] = w
	}
	got := make([]float64, w*P)
	if err := c.AllgathervFloat64(mine, counts, got); err != nil {
		return err
	}
	if c.Rank() != 0 {
		return nil
	}
	rounds := float64(max(r.Iter(), 1))
	type rank struct {
		Rank           int     `json:"rank"`
		Nodes          int     `json:"nodes"`
		SetupSeconds   float64 `json:"setup_seconds"`
		SetupData      float64 `json:"setup_data_seconds"`
		SetupGraph     float64 `json:"setup_graph_seconds"`
		SetupCPU       float64 `json:"setup_cpu_seconds"`
		WallSeconds    float64 `json:"wall_seconds"`
		RoundSeconds   float64 `json:"round_seconds"`
		CommSeconds    float64 `json:"comm_seconds"`
		MeasureSeconds float64 `json:"measure_seconds"`
		RecordBytes    int64   `json:"record_bytes"`
		BytesSent      int64   `json:"bytes_sent"`
		BytesPerRound  float64 `json:"bytes_per_round"`
		PeakRSSBytes   int64   `json:"peak_rss_bytes"`
	}
	var ranks []rank
	var roundMax, commMed, bprMed, rssMax float64
	var rs, cs, bs []float64
	for q := 0; q < P; q++ {
		v := got[q*w : (q+1)*w]
		ranks = append(ranks, rank{Rank: q, Nodes: int(v[0]), SetupSeconds: v[1], SetupData: v[9], SetupGraph: v[10], SetupCPU: v[11], WallSeconds: v[2], RoundSeconds: v[3], CommSeconds: v[4],
			MeasureSeconds: v[5], RecordBytes: int64(v[6]), BytesSent: int64(v[7]), BytesPerRound: v[6] / rounds, PeakRSSBytes: int64(v[8])})
		roundMax = max(roundMax, v[3])
		rssMax = max(rssMax, v[8])
		rs, cs, bs = append(rs, v[3]), append(cs, v[4]), append(bs, v[6]/rounds)
	}
	commMed, bprMed = medianOf(cs), medianOf(bs)
	res := map[string]any{"ranks": P, "n": *n, "d": *d, "iters": r.Iter(), "workers_per_rank": *workers, "blocks": r.Blocks,
		"round_seconds_max": roundMax, "round_seconds_median": medianOf(rs), "comm_seconds_median": commMed,
		"ns_per_node_round": roundMax / rounds / float64(*n) * 1e9, "bytes_per_round_median": bprMed,
		"peak_rss_bytes_max": int64(rssMax), "objective_mean": trace[len(trace)-1].ObjMean, "per_rank": ranks}
	if *asJSON {
		printJSON(stdout, res)
		return nil
	}
	fmt.Fprintf(stdout, "%d ranks, n = %d, d = %d, %d rounds: rounds %.3gs (slowest rank), of which collectives %.3gs (median); %.0f B sent a round a rank (median); peak RSS %.0f MB (largest rank)\n",
		P, *n, *d, r.Iter(), roundMax, commMed, bprMed, rssMax/1e6)
	return nil
}

func medianOf(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
