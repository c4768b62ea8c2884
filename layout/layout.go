// Package layout holds the engine's structure-of-arrays state: every per-node
// field (data X, dual variables Z, iterates Θ, running averages Θ̄, …) is one
// contiguous rows×stride float64 matrix whose rows start on 64-byte cache-line
// boundaries, so that
//
//   - a node's row is one aligned, contiguous run of memory (vector kernels
//     load it without peeling),
//   - a shard of rows owned by one worker never shares a cache line with
//     another worker's shard (shards start on multiples of 8 rows),
//   - the whole field is a blas64.General, so metrics such as the scores
//     X·Θᵀ of many parameter vectors at once are one BLAS call.
//
// The padding columns between Cols and Stride are kept at zero.
package layout

import (
	"fmt"
	"unsafe"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/pairgossip/pairgossip/internal/hugepage"
	"github.com/pairgossip/pairgossip/internal/par"
	"github.com/pairgossip/pairgossip/kernel"
)

// LineFloats is the number of float64 in a 64-byte cache line.
const LineFloats = 8

// Stride returns cols rounded up to a multiple of LineFloats (at least LineFloats).
func Stride(cols int) int {
	if cols <= 0 {
		return LineFloats
	}
	return (cols + LineFloats - 1) / LineFloats * LineFloats
}

// Matrix is a rows×cols row-major matrix with a padded, cache-line-aligned stride.
type Matrix struct {
	Rows, Cols, Stride int
	Data               []float64 // len Rows*Stride; &Data[0] is 64-byte aligned
}

// Bytes returns the memory a rows×cols Matrix takes, padding included.
func Bytes(rows, cols int) int64 {
	return int64(rows)*int64(Stride(cols))*8 + 64
}

// AlignedFloats returns a zeroed slice of n float64 whose first element is
// 64-byte aligned, its memory faulted in for writing by the calling
// thread: one store a page (Prefault). Use it for arrays the engine writes
// whole; an array written in a few places only takes LazyFloats.
func AlignedFloats(n int) []float64 {
	buf := LazyFloats(n)
	Prefault(buf)
	return buf
}

// LazyFloats is AlignedFloats without Prefault: pages never written cost
// no memory (a fresh allocation of this size is mapped lazily), at the
// price of a copy-on-write fault for each page read before it is written.
func LazyFloats(n int) []float64 {
	if n == 0 {
		return []float64{}
	}
	buf := make([]float64, n+LineFloats)
	hugepage.Advise(buf) // before the first write (large arrays only)
	off := 0
	for uintptr(unsafe.Pointer(&buf[off]))%64 != 0 {
		off++
	}
	return buf[off : off+n : off+n]
}

// Prefault writes a zero into every 4 KiB page of buf (which must hold
// zeros), so that the pages are mapped writable now, by the calling thread.
// A fresh page that is read first maps the kernel's shared zero page, and
// the first write after that is a copy-on-write fault that must flush the
// translation of every CPU the process runs on: an inter-processor
// interrupt, costly in a virtual machine. When an executor's workers
// touch the state first (a metric-learning run reads z before it writes
// it), each of those faults costs the process several times a fault by one
// thread writing (bench/RESULTS.md, "Measurements cited by comments outside
// the engine").
func Prefault(buf []float64) {
	const perPage = 4096 / 8
	if len(buf) == 0 {
		return
	}
	// From the first whole page on; the partial page before it by its first
	// word.
	skip := (perPage - int(uintptr(unsafe.Pointer(&buf[0]))%4096/8)) % perPage
	buf[0] = 0
	for i := skip; i < len(buf); i += perPage {
		buf[i] = 0
	}
}

// prefaultSplit is the size from which PrefaultWorkers splits a buffer
// over its goroutines, and the alignment of their parts (a transparent
// huge page: no two goroutines fault the same one).
const prefaultSplit = 2 << 20

// PrefaultWorkers is Prefault over par.Workers(workers) goroutines, each
// writing one contiguous part of buf (parts on 2 MiB boundaries), for
// buffers of more than a few MiB. Each page is still written before it is
// read, so the faults are the cheap ones of Prefault; what they cost is
// then spread over the cores (BenchmarkPrefault). In a virtual machine
// whose host backs the guest's memory only on its first touch, faulting in
// the state is most of a large run's set-up (bench e2e at n = 10⁷; both
// measurements: bench/RESULTS.md, "Measurements cited by comments outside
// the engine").
func PrefaultWorkers(buf []float64, workers int) {
	if len(buf) == 0 {
		return
	}
	parts := prefaultParts(uintptr(unsafe.Pointer(&buf[0])), len(buf), par.Workers(workers))
	par.Blocks(len(parts), len(parts), func(_, lo, hi int) {
		for _, pt := range parts[lo:hi] {
			Prefault(buf[pt[0]:pt[1]])
		}
	})
}

// prefaultParts splits n floats from address addr into at most workers
// contiguous parts [lo, hi) that cover [0, n) in order, every part but the
// first starting on a 2 MiB boundary; one part below two such units.
func prefaultParts(addr uintptr, n, workers int) [][2]int {
	const perHuge = prefaultSplit / 8
	if workers <= 1 || n < 2*perHuge {
		return [][2]int{{0, n}}
	}
	head := (perHuge - int(addr%prefaultSplit/8)) % perHuge
	units := (n - head + perHuge - 1) / perHuge
	workers = min(workers, units)
	parts := make([][2]int, 0, workers)
	for w := range workers {
		lo, hi := head+w*units/workers*perHuge, min(head+(w+1)*units/workers*perHuge, n)
		if w == 0 {
			lo = 0
		}
		parts = append(parts, [2]int{lo, hi})
	}
	return parts
}

// New returns a zeroed rows×cols matrix, its memory faulted in
// (AlignedFloats). It panics on negative sizes.
func New(rows, cols int) Matrix {
	m := NewLazy(rows, cols)
	Prefault(m.Data)
	return m
}

// PrefetchRows asks the CPU for the cache lines of rows base+idx[i] of m
// (kernel.PrefetchRows, one call for all of them): a hint for rows about
// to be read out of address order, which never faults and changes no
// result. The rows must exist.
func (m Matrix) PrefetchRows(base int, idx []int32) {
	if len(idx) > 0 && base < m.Rows {
		kernel.PrefetchRows(unsafe.Pointer(&m.Data[base*m.Stride]), idx, m.Stride*8, (m.Cols*8+63)/64)
	}
}

// NewWorkers is New with its memory faulted in by PrefaultWorkers over
// workers goroutines (0: GOMAXPROCS).
func NewWorkers(rows, cols, workers int) Matrix {
	m := NewLazy(rows, cols)
	PrefaultWorkers(m.Data, workers)
	return m
}

// NewLazy is New without faulting the memory in (LazyFloats): for a
// matrix of which only some rows are ever written.
func NewLazy(rows, cols int) Matrix {
	if rows < 0 || cols < 0 {
		panic(fmt.Sprintf("layout: negative size %d×%d", rows, cols))
	}
	s := Stride(cols)
	return Matrix{Rows: rows, Cols: cols, Stride: s, Data: LazyFloats(rows * s)}
}

// FromDense copies a dense row-major rows×cols slice into a new padded Matrix.
func FromDense(rows, cols int, a []float64) Matrix {
	if len(a) != rows*cols {
		panic(fmt.Sprintf("layout: FromDense: len %d != %d×%d", len(a), rows, cols))
	}
	m := New(rows, cols)
	for i := 0; i < rows; i++ {
		copy(m.Row(i), a[i*cols:(i+1)*cols])
	}
	return m
}

// Adopt returns a rows×cols Matrix over a itself when a already has the
// layout of one (cols a multiple of LineFloats, so no padding, and a's
// first element 64-byte aligned), and a padded copy (FromDense) otherwise.
// It reports whether a was adopted: then the Matrix and a share their
// memory.
func Adopt(rows, cols int, a []float64) (m Matrix, adopted bool) {
	if len(a) != rows*cols {
		panic(fmt.Sprintf("layout: Adopt: len %d != %d×%d", len(a), rows, cols))
	}
	if cols > 0 && cols == Stride(cols) && len(a) > 0 && uintptr(unsafe.Pointer(&a[0]))%64 == 0 {
		return Matrix{Rows: rows, Cols: cols, Stride: cols, Data: a}, true
	}
	return FromDense(rows, cols, a), false
}

// Row returns row i (length Cols, capacity up to the end of its padded row).
func (m Matrix) Row(i int) []float64 {
	o := i * m.Stride
	return m.Data[o : o+m.Cols : o+m.Stride]
}

// PaddedRow returns row i including its zero padding (length Stride).
func (m Matrix) PaddedRow(i int) []float64 {
	o := i * m.Stride
	return m.Data[o : o+m.Stride : o+m.Stride]
}

// General views the matrix as a blas64.General (no copy).
func (m Matrix) General() blas64.General {
	return blas64.General{Rows: m.Rows, Cols: m.Cols, Stride: m.Stride, Data: m.Data}
}

// Zero sets every element of every row to 0 (only this field's columns for
// a view made by NewRecords).
func (m Matrix) Zero() {
	for i := 0; i < m.Rows; i++ {
		clear(m.Row(i))
	}
}

// CopyFrom copies o (same rows and columns) into m, row by row.
func (m Matrix) CopyFrom(o Matrix) {
	if m.Rows != o.Rows || m.Cols != o.Cols {
		panic("layout: CopyFrom: shape mismatch")
	}
	for i := 0; i < m.Rows; i++ {
		copy(m.Row(i), o.Row(i))
	}
}

// Clone returns a deep copy with its own storage (stride Stride(Cols)).
func (m Matrix) Clone() Matrix {
	c := New(m.Rows, m.Cols)
	c.CopyFrom(m)
	return c
}

// Range is a half-open range of rows [Lo, Hi).
type Range struct{ Lo, Hi int }

// Shards splits rows 0..n into at most parts contiguous ranges whose inner
// boundaries are multiples of LineFloats rows, so no two shards share a
// cache line of any row-aligned field whose stride is a multiple of 8 floats.
// Shards are as even as the 8-row granularity allows; empty shards are
// omitted.
func Shards(n, parts int) []Range {
	if n <= 0 {
		return nil
	}
	if parts < 1 {
		parts = 1
	}
	blocks := (n + LineFloats - 1) / LineFloats
	if parts > blocks {
		parts = blocks
	}
	out := make([]Range, 0, parts)
	lo := 0
	for p := 0; p < parts; p++ {
		hiBlock := (p + 1) * blocks / parts
		hi := min(hiBlock*LineFloats, n)
		if hi > lo {
			out = append(out, Range{lo, hi})
		}
		lo = hi
	}
	return out
}

// NewRecords allocates one buffer of rows records and returns one view per
// field: field f is a rows×cols[f] Matrix whose rows all lie in the same
// record. Every view shares the record stride (a multiple of LineFloats) and
// starts on a cache-line boundary, so each view is still a blas64.General with
// aligned rows, while a node's fields sit next to each other in memory: an
// update that touches every field of one node (the asynchronous event, the
// synchronous row update) reads one contiguous record instead of one row
// per field scattered over the heap.
func NewRecords(rows int, cols ...int) []Matrix {
	return NewRecordsWorkers(rows, 1, cols...)
}

// NewRecordsWorkers is NewRecords with the buffer faulted in by
// PrefaultWorkers over workers goroutines (0: GOMAXPROCS): for the
// engine's state at large n, which it allocates with the run's workers.
func NewRecordsWorkers(rows, workers int, cols ...int) []Matrix {
	offs := make([]int, len(cols))
	stride := 0
	for f, c := range cols {
		offs[f] = stride
		stride += Stride(c)
	}
	buf := LazyFloats(rows*stride + stride) // one spare record: views may extend to the end of their last row
	PrefaultWorkers(buf, workers)
	out := make([]Matrix, len(cols))
	for f, c := range cols {
		out[f] = Matrix{Rows: rows, Cols: c, Stride: stride, Data: buf[offs[f] : offs[f]+rows*stride]}
	}
	return out
}
