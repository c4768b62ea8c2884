package pairgossip

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/pairgossip/pairgossip/internal/atomicfile"
	"github.com/pairgossip/pairgossip/kernel"
	"github.com/pairgossip/pairgossip/problem"
)

// The centralized optimum R_n(θ*) depends on the data, the labels, the
// loss, the regulariser and its parameters and the solver's options, not on
// the graph, the algorithm or the seed: runs of one problem share it. It is
// cached on disk (docs/design.md §3.1), in OptimumCacheDir, one file per
// problem named by the SHA-256 of its key — a canonical JSON encoding of
// everything that determines the solve (optimumKey) — and holding that key
// in full, so an entry whose key differs (a hash collision, another
// version's file) or whose content does not verify (a truncated or edited
// file) is never used: the optimum is solved again and the entry replaced.

// OptimumSolverVersion names the solver's arithmetic in the cache key: it
// must change whenever a change of problem/optimum.go or of a built-in
// loss could change an optimum's bits, so that no entry of an earlier
// solver is taken for the current one. Version 2: L-BFGS on the fast pair
// sums from 2^20 pairs (problem.Problem.FastOptimum), the error bound stored.
// Version 3: multipartite ranking on the fast sums; metric learning beyond
// the pair budget as the incomplete-U optimum (its pairs in the key, its
// standard error stored).
const OptimumSolverVersion = 3

// optimumCacheFormat is the first field of a cache entry.
const optimumCacheFormat = "pairgossip optimum cache 1"

// OptimumCacheDir is where the optima are cached: os.UserCacheDir()/
// pairgossip/optimum ($XDG_CACHE_HOME or ~/.cache on Linux). It returns an
// error when the system has no cache directory (no $HOME): runs then solve
// every time.
func OptimumCacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "pairgossip", "optimum"), nil
}

// optimumKey is what determines a centralized optimum, bit for bit.
type optimumKey struct {
	Solver int    `json:"solver_version"`
	Go     string `json:"go"` // the toolchain's math library
	// Kernel, LAPACK and BLASCore: the implementations whose rounding the
	// solver's sums follow (the same bits only with the same ones).
	Kernel   string `json:"kernel"`
	LAPACK   string `json:"lapack"`
	BLASCore string `json:"blas_core"`
	// Build: a build that fuses multiply-adds (kernel.Build; empty for the
	// default amd64 build, whose keys stay those written before it).
	Build   string  `json:"build,omitempty"`
	Problem string  `json:"problem"`            // the loss, or the objective's name
	UserKey string  `json:"user_key,omitempty"` // Input.OptimumCacheKey of a user objective
	Reg     string  `json:"reg"`
	Lambda  float64 `json:"lambda"`
	Radius  float64 `json:"radius"`
	B       float64 `json:"b"`
	MaxIter int     `json:"max_iter"`
	Tol     float64 `json:"tol"`
	FinalMu float64 `json:"final_mu"`
	// IncompletePairs and IncompleteSeed: the incomplete-U optimum's
	// sample (0: the exact optimum).
	IncompletePairs int64  `json:"incomplete_pairs,omitempty"`
	IncompleteSeed  uint64 `json:"incomplete_seed,omitempty"`
	N               int    `json:"n"`
	D               int    `json:"d"`
	P               int    `json:"p"`
	// Data is the SHA-256 of the points (rows of X, little-endian float64)
	// and then of the labels the problem holds (little-endian int32).
	Data string `json:"data_sha256"`
}

// cachedOptimum is the optimum as an entry stores it (floats in Go's
// shortest round-trip JSON form: the same bits back).
type cachedOptimum struct {
	Value      float64   `json:"value"`
	Theta      []float64 `json:"theta"`
	Method     string    `json:"method"`
	ErrorBound float64   `json:"error_bound,omitempty"`
	StdErr     float64   `json:"stderr,omitempty"`
	FinalMu    float64   `json:"final_mu"`
	Iterations int       `json:"iterations"`
	Converged  bool      `json:"converged"`
}

// optimumEntry is a cache file.
type optimumEntry struct {
	Format  string          `json:"format"`
	Key     json.RawMessage `json:"key"`
	Optimum json.RawMessage `json:"optimum"`
	// SHA256 is the SHA-256 of Key and Optimum's bytes, one after the other.
	SHA256 string `json:"sha256"`
}

// optimumCacheKey returns the canonical key of this run's optimum under
// opt, and false when it is not cached: a user's objective (problem.Custom
// through Input.Objective) whose code cannot be fingerprinted, unless the
// program named it with Input.OptimumCacheKey.
func (r *Run) optimumCacheKey(opt problem.OptimumOptions) ([]byte, bool) {
	if r.userObjective && r.userCacheKey == "" {
		return nil, false
	}
	p := r.Problem
	opt = p.SolveDefaults(opt)
	h := sha256.New()
	lw := newLEWriter(h)
	lw.rows(p.X)
	lw.int32s(p.Label)
	lw.flush()
	k := optimumKey{Solver: OptimumSolverVersion, Go: runtime.Version(), Kernel: kernel.Active(), LAPACK: problem.LAPACK,
		BLASCore: problem.BLASCore(), Build: kernel.FusedBuild(), Problem: r.Config.Problem, UserKey: r.userCacheKey, Reg: p.Reg.Kind.String(),
		Lambda: p.Reg.Lambda, Radius: p.Reg.Radius, B: p.B, MaxIter: opt.MaxIter, Tol: opt.Tol, FinalMu: opt.FinalMu,
		IncompletePairs: opt.IncompletePairs, IncompleteSeed: opt.IncompleteSeed,
		N: p.N, D: p.D, P: p.P, Data: hex.EncodeToString(h.Sum(nil))}
	b, err := json.Marshal(k)
	if err != nil {
		return nil, false // a non-finite parameter: not cached
	}
	return b, true
}

// SolveOptimum returns the centralized optimum of the run's problem under
// opt: from the cache (OptimumCacheDir) when an entry of exactly this
// problem is there (cached true), else solved (problem.Problem.Solve) and
// stored. Config.NoOptimumCache solves without reading or writing the
// cache. A cache that cannot be read or written is no error (the optimum is
// solved; a failed write adds a warning to the run's).
func (r *Run) SolveOptimum(opt problem.OptimumOptions) (o problem.Optimum, cached bool, err error) {
	if b := r.incompletePairs(); b > 0 && opt.IncompletePairs == 0 {
		opt.IncompletePairs, opt.IncompleteSeed = b, incompleteSeed
	}
	var key []byte
	var path string
	if !r.Config.NoOptimumCache {
		if k, ok := r.optimumCacheKey(opt); ok {
			if dir, derr := OptimumCacheDir(); derr == nil {
				sum := sha256.Sum256(k)
				key, path = k, filepath.Join(dir, hex.EncodeToString(sum[:])+".json")
				if o, ok := readOptimumEntry(path, key, r.Problem.P); ok {
					return o, true, nil
				}
			}
		}
	}
	o, err = r.Problem.Solve(opt)
	if err != nil || path == "" || !finiteOptimum(o) {
		return o, false, err
	}
	if werr := writeOptimumEntry(path, key, o); werr != nil {
		r.Warnings = append(r.Warnings, fmt.Sprintf("optimum cache: not written (%v); the next run of this problem solves it again", werr))
	}
	return o, false, nil
}

func finiteOptimum(o problem.Optimum) bool {
	for _, v := range append([]float64{o.Value, o.FinalMu}, o.Theta...) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// entrySum is the checksum an entry stores.
func entrySum(key, opt []byte) string {
	h := sha256.New()
	h.Write(key)
	h.Write(opt)
	return hex.EncodeToString(h.Sum(nil))
}

// readOptimumEntry returns the optimum stored at path when the file is an
// entry of this key that verifies, with P parameters; false otherwise (no
// file, another key, a corrupt file), in which case it is not used.
func readOptimumEntry(path string, key []byte, P int) (problem.Optimum, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return problem.Optimum{}, false
	}
	var e optimumEntry
	if json.Unmarshal(b, &e) != nil || e.Format != optimumCacheFormat || !bytes.Equal(e.Key, key) ||
		entrySum(e.Key, e.Optimum) != e.SHA256 {
		return problem.Optimum{}, false
	}
	var c cachedOptimum
	dec := json.NewDecoder(bytes.NewReader(e.Optimum))
	dec.DisallowUnknownFields()
	if dec.Decode(&c) != nil || len(c.Theta) != P || c.Method == "" {
		return problem.Optimum{}, false
	}
	o := problem.Optimum{Value: c.Value, Theta: c.Theta, Method: c.Method, ErrorBound: c.ErrorBound, StdErr: c.StdErr, FinalMu: c.FinalMu, Iterations: c.Iterations, Converged: c.Converged}
	if !finiteOptimum(o) {
		return problem.Optimum{}, false
	}
	return o, true
}

// writeOptimumEntry stores o under path, atomically (a temporary file and a
// rename: a reader sees the old entry or the new one, never a part).
func writeOptimumEntry(path string, key []byte, o problem.Optimum) error {
	ob, err := json.Marshal(cachedOptimum{Value: o.Value, Theta: o.Theta, Method: o.Method, ErrorBound: o.ErrorBound, StdErr: o.StdErr, FinalMu: o.FinalMu, Iterations: o.Iterations, Converged: o.Converged})
	if err != nil {
		return err
	}
	b, err := json.Marshal(optimumEntry{Format: optimumCacheFormat, Key: key, Optimum: ob, SHA256: entrySum(key, ob)})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteBytes(path, append(b, '\n'))
}

// optimumTimed solves (or looks up) the optimum and times it.
func (r *Run) optimumTimed(opt problem.OptimumOptions) (problem.Optimum, bool, time.Duration, error) {
	t0 := time.Now()
	o, cached, err := r.SolveOptimum(opt)
	return o, cached, time.Since(t0), err
}
