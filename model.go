package pairgossip

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/pairgossip/pairgossip/internal/atomicfile"
)

// Models out (issue #20, item 4): the final θ̄_k of every node and their
// mean, as NumPy .npy files (format version 1.0: the magic "\x93NUMPY",
// version bytes 1 0, a little-endian uint16 header length, an ASCII
// dictionary padded with spaces and ended by a newline so that the data
// starts on a 64-byte boundary, then little-endian float64 in C order),
// which numpy.load(path, mmap_mode="r") maps. A matrix parameter (metric
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

// npyHeader returns the .npy version 1.0 preamble of a little-endian
// float64 C-order array of this shape.
func npyHeader(shape ...int) []byte {
	dims := make([]string, len(shape))
	for i, v := range shape {
		dims[i] = fmt.Sprint(v)
	}
	sh := strings.Join(dims, ", ")
	if len(shape) == 1 {
		sh += ","
	}
	dict := fmt.Sprintf("{'descr': '<f8', 'fortran_order': False, 'shape': (%s), }", sh)
	// magic (6) + version (2) + length (2) + dict + padding + '\n' ≡ 0 mod 64.
	total := 10 + len(dict) + 1
	pad := (64 - total%64) % 64
	h := make([]byte, 0, total+pad)
	h = append(h, "\x93NUMPY\x01\x00"...)
	h = binary.LittleEndian.AppendUint16(h, uint16(len(dict)+pad+1))
	h = append(h, dict...)
	for i := 0; i < pad; i++ {
		h = append(h, ' ')
	}
	return append(h, '\n')
}

// ModelBytes returns the size of the files SaveModel writes.
func (r *Run) ModelBytes() int64 {
	rows, P := int64(r.Sim.ThetaBar.Rows), int64(r.Problem.P)
	return int64(len(npyHeader(int(rows), int(P)))) + rows*P*8 + int64(len(npyHeader(int(P)))) + P*8
}

// CheckModelSpace returns an error when the files SaveModel writes would
// not fit the free space of dir's file system (dir, or its nearest existing
// ancestor when it is yet to be created), with 1% and 64 MiB to spare. The
// command line calls it before the run, so that a model that cannot be
// saved is refused before the work it would end.
func (r *Run) CheckModelSpace(dir string) error {
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
	b := r.ModelBytes()
	if need := b + b/100 + 64<<20; uint64(need) > free {
		return fmt.Errorf("model: %s of θ̄ (%d nodes × %d) does not fit the %s free in %s", byteSize(b), r.Sim.ThetaBar.Rows, r.Problem.P, byteSize(int64(free)), dir)
	}
	return nil
}

// freeDisk is diskFree, replaceable in tests.
var freeDisk = diskFree

// SaveModel writes the nodes' final θ̄_k (ModelNodesFile, shape (n, P); (1,
// P) for the centralized algorithm) and their mean (ModelMeanFile, (P,))
// into dir, each atomically (a temporary file, fsync, rename), after
// checking that they fit the free space of dir's file system (with 1% and
// 64 MiB to spare), which it refuses otherwise.
func (r *Run) SaveModel(dir string) (ModelFiles, error) {
	bar := r.Sim.ThetaBar
	rows, P := bar.Rows, r.Problem.P
	mf := ModelFiles{Nodes: filepath.Join(dir, ModelNodesFile), Mean: filepath.Join(dir, ModelMeanFile), Rows: rows, P: P, Bytes: r.ModelBytes()}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return mf, fmt.Errorf("model: %w", err)
	}
	if err := r.CheckModelSpace(dir); err != nil {
		return mf, err
	}
	mean := make([]float64, P)
	for k := 0; k < rows; k++ {
		for a, v := range bar.Row(k)[:P] {
			mean[a] += v
		}
	}
	for a := range mean {
		mean[a] /= float64(rows)
	}
	err := atomicfile.Write(mf.Nodes, func(f *os.File) error {
		w := bufio.NewWriterSize(f, 1<<20)
		w.Write(npyHeader(rows, P))
		buf := make([]byte, 8*P)
		for k := 0; k < rows; k++ {
			for a, v := range bar.Row(k)[:P] {
				binary.LittleEndian.PutUint64(buf[8*a:], math.Float64bits(v))
			}
			w.Write(buf)
		}
		return w.Flush()
	})
	if err != nil {
		return mf, fmt.Errorf("model: %w", err)
	}
	b := npyHeader(P)
	for _, v := range mean {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	if err := atomicfile.WriteBytes(mf.Mean, b); err != nil {
		return mf, fmt.Errorf("model: %w", err)
	}
	return mf, nil
}

func byteSize(b int64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", b)
}
