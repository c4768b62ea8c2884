package dataset

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/pairgossip/pairgossip/internal/par"
	"github.com/pairgossip/pairgossip/npy"
)

// npyMagic starts every .npy file.
const npyMagic = npy.Magic

// MaxNPYHeaderBytes is the largest .npy header (the dictionary text) the
// readers accept (npy.MaxHeaderBytes).
const MaxNPYHeaderBytes = npy.MaxHeaderBytes

// npyHeader is a parsed .npy header (package npy, the project's codec of
// the format), with the checks of a data matrix.
type npyHeader struct{ npy.Header }

// readNPYHeader reads the magic, version and header from r (npy.ReadHeader).
func readNPYHeader(r io.Reader) (npyHeader, error) {
	h, err := npy.ReadHeader(r)
	return npyHeader{h}, err
}

// rows and cols of an array used as a data matrix: 1-D (n,) is n×1.
func (h *npyHeader) matrixShape() (n, d int64, ok bool) {
	switch len(h.Shape) {
	case 1:
		return h.Shape[0], 1, true
	case 2:
		return h.Shape[0], h.Shape[1], true
	}
	return 0, 0, false
}

// checkShape checks the header's shape for the features (role "features":
// 1-D or 2-D) or the labels (1-D, or 2-D with one column), the element
// limit, and that the product does not overflow the byte count.
func (h *npyHeader) checkShape(labels bool, lim limits) (n, d int64, err error) {
	n, d, ok := h.matrixShape()
	if !ok {
		if labels {
			return 0, 0, fmt.Errorf("labels have shape %s; want a 1-D array (n,) or a column (n, 1)", h.ShapeString())
		}
		return 0, 0, fmt.Errorf("features have shape %s; want a 2-D array (n, d) (or 1-D (n,) for one feature)", h.ShapeString())
	}
	if labels && d != 1 {
		return 0, 0, fmt.Errorf("labels have shape %s; want a 1-D array (n,) or a column (n, 1)", h.ShapeString())
	}
	if n == 0 || d == 0 {
		return 0, 0, fmt.Errorf("array of shape %s is empty", h.ShapeString())
	}
	if n > (1<<62)/d/8 {
		return 0, 0, fmt.Errorf("%w: shape %s is too large", ErrTooLarge, h.ShapeString())
	}
	if lim.overElements(n, d) {
		msg := lim.elementsMsg(n, d, false, "; raise MaxElements to allow more")
		return 0, 0, fmt.Errorf("%w%s", ErrTooLarge, strings.TrimPrefix(msg, ErrTooLarge.Error()))
	}
	return n, d, nil
}

// placement maps storage order to the row-major destination.
type placement struct {
	n, d    int
	fortran bool // storage is column-major: element e is (e mod n, e div n)
}

// decodeChunk converts the elements of src (whole elements of dtype dt,
// storage positions e0, e0+1, ...) into dst (row-major n×d) and returns
// the first storage position of a non-finite float, or -1.
func decodeChunk(dst []float64, src []byte, dt npy.Dtype, e0 int, pl placement, tmp []float64) int {
	cnt := len(src) / dt.Size
	var out []float64
	if !pl.fortran || pl.d == 1 || pl.n == 1 {
		out = dst[e0 : e0+cnt]
	} else {
		out = tmp[:cnt]
	}
	bad := npy.DecodeValues(out, src, dt)
	if pl.fortran && pl.d > 1 && pl.n > 1 {
		i, j := e0%pl.n, e0/pl.n
		for _, v := range out {
			dst[i*pl.d+j] = v
			if i++; i == pl.n {
				i, j = 0, j+1
			}
		}
	}
	if bad >= 0 {
		return e0 + bad
	}
	return -1
}

// npySource yields the bytes of an array's data region.
type npySource interface {
	// chunk returns the n bytes at offset off of the data; buf (len >= n)
	// may be used to hold them. Calls may come from several goroutines
	// unless the source is sequential.
	chunk(off, n int64, buf []byte) ([]byte, error)
	// sequential sources must be read in order by one goroutine.
	sequential() bool
}

// bytesSource is data already in memory (a mapped file): no copy.
type bytesSource []byte

func (b bytesSource) chunk(off, n int64, _ []byte) ([]byte, error) { return b[off : off+n], nil }
func (b bytesSource) sequential() bool                             { return false }

// readerAtSource reads the data at base+off of a file.
type readerAtSource struct {
	r    io.ReaderAt
	base int64
}

func (s readerAtSource) chunk(off, n int64, buf []byte) ([]byte, error) {
	k, err := s.r.ReadAt(buf[:n], s.base+off)
	if int64(k) == n {
		return buf[:n], nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return nil, err
}
func (s readerAtSource) sequential() bool { return false }

// readerSource reads a stream in order.
type readerSource struct{ r io.Reader }

func (s readerSource) chunk(_, n int64, buf []byte) ([]byte, error) {
	if _, err := io.ReadFull(s.r, buf[:n]); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return buf[:n], nil
}
func (s readerSource) sequential() bool { return true }

// npyChunkElems is the number of elements decoded at a time.
const npyChunkElems = 1 << 16

// errNonFinite reports the storage position of a non-finite value.
type errNonFinite struct{ e int }

func (e errNonFinite) Error() string { return "non-finite value" }

// decodeArray fills dst (row-major n×d) from src in parallel (one block of
// storage positions per worker), or in order for a sequential source. It
// returns the error of the first failing block in storage order; a
// non-finite float is reported as errNonFinite with its position.
func decodeArray(dst []float64, src npySource, dt npy.Dtype, pl placement, workers int) error {
	total := len(dst)
	if src.sequential() {
		workers = 1
	}
	workers = min(par.Workers(workers), max(1, total/npyChunkElems))
	errs := make([]error, workers)
	direct := dt.Kind == 'f' && dt.Size == 8 && !dt.Big && !(pl.fortran && pl.d > 1 && pl.n > 1)
	par.Blocks(total, workers, func(w, lo, hi int) {
		var buf []byte
		var tmp []float64
		if !direct {
			buf = make([]byte, min(hi-lo, npyChunkElems)*dt.Size)
			tmp = make([]float64, min(hi-lo, npyChunkElems))
		}
		for e := lo; e < hi; e += npyChunkElems {
			cnt := min(npyChunkElems, hi-e)
			b := buf
			if direct { // read straight into the destination
				b = unsafe.Slice((*byte)(unsafe.Pointer(&dst[e])), 8*cnt)
			}
			chunk, err := src.chunk(int64(e)*int64(dt.Size), int64(cnt)*int64(dt.Size), b)
			if err != nil {
				errs[w] = err
				return
			}
			if direct && unsafe.SliceData(chunk) == unsafe.SliceData(b) {
				for k, v := range dst[e : e+cnt] {
					if v-v != 0 {
						errs[w] = errNonFinite{e + k}
						return
					}
				}
				continue
			}
			if bad := decodeChunk(dst, chunk, dt, e, pl, tmp); bad >= 0 {
				errs[w] = errNonFinite{bad}
				return
			}
		}
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// checkFinite returns the errNonFinite of the first non-finite value of x,
// scanning in parallel.
func checkFinite(x []float64, workers int) error {
	workers = min(par.Workers(workers), max(1, len(x)/npyChunkElems))
	first := make([]int, workers)
	par.Blocks(len(x), workers, func(w, lo, hi int) {
		first[w] = -1
		for k, v := range x[lo:hi] {
			if v-v != 0 {
				first[w] = lo + k
				return
			}
		}
	})
	for _, e := range first {
		if e >= 0 {
			return errNonFinite{e}
		}
	}
	return nil
}

// labelName is the text of a numeric label: an integer in decimal, other
// values in the shortest form that reads back exactly ("2.5", "1e-07").
func labelName(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1<<63 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// classesFromValues turns numeric labels into class indices ordered by
// value, named by labelName ("0", "1", "-1", "2.5"). Labels must be finite.
func classesFromValues(v []float64, workers int) (class []int32, names []string) {
	class = make([]int32, len(v))
	lo, hi := math.Inf(1), math.Inf(-1)
	integral := true
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
		integral = integral && x == math.Trunc(x)
	}
	const maxTable = 1 << 20
	if integral && hi-lo < maxTable {
		// Integer labels in a modest range: a lookup table.
		present := make([]bool, int(hi-lo)+1)
		for _, x := range v {
			present[int(x-lo)] = true
		}
		rank := make([]int32, len(present))
		k := int32(0)
		for i, p := range present {
			if p {
				rank[i] = k
				k++
				names = append(names, labelName(lo+float64(i)))
			}
		}
		par.Blocks(len(v), workers, func(_, a, b int) {
			for i := a; i < b; i++ {
				class[i] = rank[int(v[i]-lo)]
			}
		})
		return class, names
	}
	ids := make(map[float64]int32)
	var uniq []float64
	for _, x := range v {
		if _, ok := ids[x]; !ok {
			ids[x] = 0
			uniq = append(uniq, x)
		}
	}
	slices.Sort(uniq)
	for r, x := range uniq {
		ids[x] = int32(r)
		names = append(names, labelName(x))
	}
	for i, x := range v {
		class[i] = ids[x]
	}
	return class, names
}
