package output

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/pairgossip/pairgossip"
	"github.com/pairgossip/pairgossip/internal/atomicfile"
	"github.com/pairgossip/pairgossip/internal/sysprobe"
	"github.com/pairgossip/pairgossip/npy"
)

// Models out (issue #20, item 4): the final θ̄_k of every node and their
// mean, as NumPy .npy files written by package npy (format version 1.0,
// little-endian float64 in C order, the data on a 64-byte boundary), which
// numpy.load(path, mmap_mode="r") maps and npy.ReadFile reads back; in
// memory, pairgossip.Run.Model. A matrix parameter (metric
// or similarity learning, θ = W ∈ R^{d×d}) is stored flattened row-major:
// row k of the nodes' file is W_k reshaped to d·d.

// Model file names in the directory SaveModel writes.
const (
	ModelNodesFile = "theta_bar.npy"      // n×P: θ̄_k of node k in row k
	ModelMeanFile  = "theta_bar_mean.npy" // P: the mean over the nodes
)

// ModelFiles is what SaveModel wrote.
type ModelFiles struct {
	Nodes, Mean string // paths
	Rows, P     int
	Bytes       int64 // both files
}

// ModelBytes returns the size of the files SaveModel writes.
func ModelBytes(r *pairgossip.Run) int64 {
	rows, P := r.Sim.ThetaBar.Rows, r.Problem.P
	return npy.Size(rows, P) + npy.Size(P)
}

// CheckModelSpace returns an error when the files SaveModel writes would
// not fit the free space of dir's file system (dir, or its nearest existing
// ancestor when it is yet to be created), with 1% and 64 MiB to spare. The
// command line calls it before the run, so that a model that cannot be
// saved is refused before the work it would end.
func CheckModelSpace(r *pairgossip.Run, dir string) error {
	d := filepath.Clean(dir)
	for {
		if _, err := os.Stat(d); err == nil {
			break
		}
		up := filepath.Dir(d)
		if up == d {
			return nil
		}
		d = up
	}
	free, ok := freeDisk(d)
	if !ok {
		return nil
	}
	b := ModelBytes(r)
	if need := b + b/100 + 64<<20; uint64(need) > free {
		return fmt.Errorf("model: %s of θ̄ (%d nodes × %d) does not fit the %s free in %s", ByteSize(b), r.Sim.ThetaBar.Rows, r.Problem.P, ByteSize(int64(free)), dir)
	}
	return nil
}

// freeDisk is sysprobe.DiskFree, replaceable in tests.
var freeDisk = sysprobe.DiskFree

// SaveModel writes the nodes' final θ̄_k (ModelNodesFile, shape (n, P); (1,
// P) for the centralized algorithm) and their mean (ModelMeanFile, (P,))
// into dir, each atomically (a temporary file, fsync, rename), after
// checking that they fit the free space of dir's file system (with 1% and
// 64 MiB to spare), which it refuses otherwise.
func SaveModel(r *pairgossip.Run, dir string) (ModelFiles, error) {
	bar := r.Sim.ThetaBar
	rows, P := bar.Rows, r.Problem.P
	mf := ModelFiles{Nodes: filepath.Join(dir, ModelNodesFile), Mean: filepath.Join(dir, ModelMeanFile), Rows: rows, P: P, Bytes: ModelBytes(r)}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return mf, fmt.Errorf("model: %w", err)
	}
	if err := CheckModelSpace(r, dir); err != nil {
		return mf, err
	}
	mean := r.ModelMean()
	err := atomicfile.Write(mf.Nodes, func(f *os.File) error {
		return npy.WriteRows(f, []int{rows, P}, func(yield func([]float64) error) error {
			for k := 0; k < rows; k++ {
				if err := yield(bar.Row(k)[:P]); err != nil {
					return err
				}
			}
			return nil
		})
	})
	if err != nil {
		return mf, fmt.Errorf("model: %w", err)
	}
	err = atomicfile.Write(mf.Mean, func(f *os.File) error { return npy.Write(f, []int{P}, mean) })
	if err != nil {
		return mf, fmt.Errorf("model: %w", err)
	}
	return mf, nil
}

// ByteSize writes b in GiB, MiB or bytes, for messages.
func ByteSize(b int64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", b)
}
