package dataset

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/pairgossip/pairgossip/internal/par"
)

// NumPy's .npy format (https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html):
//
//	"\x93NUMPY" major minor  header-length  header  data
//
// with a 2-byte little-endian header length in version 1.0 and a 4-byte one
// in 2.0 and 3.0; the header is a Python dict literal
// {'descr': '<f8', 'fortran_order': False, 'shape': (1000, 16), } padded
// with spaces and a newline, Latin-1 text (UTF-8 in 3.0). The data follow
// uninterrupted: the elements in C (row-major) or Fortran (column-major)
// order.

// npyMagic starts every .npy file.
const npyMagic = "\x93NUMPY"

// MaxNPYHeaderBytes is the largest .npy header (the dictionary text) the
// readers accept; NumPy writes about 128 bytes for a 2-D array and refuses
// to read headers over 10 000 bytes by default.
const MaxNPYHeaderBytes = 1 << 16

// npyDtype is a supported element type.
type npyDtype struct {
	descr string // as in the header, e.g. "<f8"
	kind  byte   // 'f' float, 'i' signed, 'u' unsigned, 'b' bool
	size  int    // bytes per element
	big   bool   // big-endian
}

// npyHeader is a parsed .npy header.
type npyHeader struct {
	major, minor int
	dtype        npyDtype
	fortran      bool
	shape        []int64
	dataOff      int64 // offset of the data from the start of the array's bytes
}

// count returns the number of elements (the shape's product has been
// checked against overflow when the header was parsed).
func (h *npyHeader) count() int64 {
	c := int64(1)
	for _, s := range h.shape {
		c *= s
	}
	return c
}

func (h *npyHeader) shapeString() string {
	parts := make([]string, len(h.shape))
	for i, s := range h.shape {
		parts[i] = strconv.FormatInt(s, 10)
	}
	if len(parts) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// readNPYHeader reads the magic, version and header from r, reading no more
// than the header's bytes (so r is left at the start of the data).
func readNPYHeader(r io.Reader) (npyHeader, error) {
	var h npyHeader
	var pre [10]byte
	if n, err := io.ReadFull(r, pre[:8]); err != nil {
		if n == 0 && err == io.EOF {
			return h, errors.New("empty file (not a .npy file)")
		}
		if string(pre[:n]) == npyMagic[:min(n, 6)] {
			return h, fmt.Errorf("truncated: %d bytes, shorter than the .npy preamble", n)
		}
		return h, fmt.Errorf("not a .npy file: it starts with %q, not the magic %q", pre[:n], npyMagic)
	}
	if string(pre[:6]) != npyMagic {
		return h, fmt.Errorf("not a .npy file: it starts with %q, not the magic %q", pre[:6], npyMagic)
	}
	h.major, h.minor = int(pre[6]), int(pre[7])
	var hlen int64
	switch {
	case h.major == 1 && h.minor == 0:
		if _, err := io.ReadFull(r, pre[8:10]); err != nil {
			return h, errors.New("truncated in the header length")
		}
		hlen = int64(binary.LittleEndian.Uint16(pre[8:10]))
		h.dataOff = 10 + hlen
	case (h.major == 2 || h.major == 3) && h.minor == 0:
		var l [4]byte
		if _, err := io.ReadFull(r, l[:]); err != nil {
			return h, errors.New("truncated in the header length")
		}
		hlen = int64(binary.LittleEndian.Uint32(l[:]))
		h.dataOff = 12 + hlen
	default:
		return h, fmt.Errorf("unsupported .npy format version %d.%d (supported: 1.0, 2.0, 3.0)", h.major, h.minor)
	}
	if hlen > MaxNPYHeaderBytes {
		return h, fmt.Errorf("header of %d bytes is larger than the limit of %d bytes (a .npy header is normally about 128 bytes)", hlen, MaxNPYHeaderBytes)
	}
	buf := make([]byte, hlen)
	if n, err := io.ReadFull(r, buf); err != nil {
		return h, fmt.Errorf("truncated in the header: %d of its %d bytes", n, hlen)
	}
	if err := h.parseDict(string(buf)); err != nil {
		return h, fmt.Errorf("bad header %q: %v", strings.TrimRight(string(buf), " \n\x00"), err)
	}
	return h, nil
}

// parseDict parses the header dictionary: exactly the keys 'descr',
// 'fortran_order' and 'shape', in any order.
func (h *npyHeader) parseDict(s string) error {
	p := pyParser{s: s}
	if !p.eat('{') {
		return errors.New("not a Python dict")
	}
	seen := map[string]bool{}
	for {
		if p.eat('}') {
			break
		}
		key, err := p.str()
		if err != nil {
			return fmt.Errorf("key: %v", err)
		}
		if seen[key] {
			return fmt.Errorf("key %q appears twice", key)
		}
		seen[key] = true
		if !p.eat(':') {
			return fmt.Errorf("no ':' after key %q", key)
		}
		switch key {
		case "descr":
			if p.peek() == '[' || p.peek() == '{' {
				return errors.New("unsupported dtype: structured arrays (record dtypes) are not supported; save a plain numeric array")
			}
			d, err := p.str()
			if err != nil {
				return fmt.Errorf("descr: %v", err)
			}
			if h.dtype, err = parseDtype(d); err != nil {
				return err
			}
		case "fortran_order":
			switch {
			case p.word("True"):
				h.fortran = true
			case p.word("False"):
				h.fortran = false
			default:
				return errors.New("fortran_order is not True or False")
			}
		case "shape":
			if h.shape, err = p.tuple(); err != nil {
				return fmt.Errorf("shape: %v", err)
			}
		default:
			return fmt.Errorf("unexpected key %q (a .npy header has descr, fortran_order and shape)", key)
		}
		if !p.eat(',') {
			if !p.eat('}') {
				return errors.New("expected ',' or '}'")
			}
			break
		}
	}
	p.ws()
	if p.i != len(p.s) {
		return errors.New("text after the dict")
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return fmt.Errorf("key %q is missing", k)
		}
	}
	return nil
}

// parseDtype accepts little- and big-endian floats of 4 and 8 bytes, signed
// and unsigned integers of 1, 2, 4 and 8 bytes, and bool.
func parseDtype(d string) (npyDtype, error) {
	bad := func() (npyDtype, error) {
		return npyDtype{}, fmt.Errorf("unsupported dtype %q (supported: float64 '<f8', float32 '<f4', int64 '<i8', int32 '<i4', int16, int8 '|i1', uint8 '|u1', uint16/32/64, bool '|b1', little- or big-endian)", d)
	}
	if len(d) < 3 {
		return bad()
	}
	dt := npyDtype{descr: d, kind: d[1]}
	size, err := strconv.Atoi(d[2:])
	if err != nil {
		return bad()
	}
	dt.size = size
	switch dt.kind {
	case 'f':
		if size != 4 && size != 8 {
			return bad()
		}
	case 'i', 'u':
		if size != 1 && size != 2 && size != 4 && size != 8 {
			return bad()
		}
	case 'b':
		if size != 1 {
			return bad()
		}
	default:
		return bad()
	}
	switch d[0] {
	case '<':
	case '>':
		dt.big = size > 1
	case '|':
		if size != 1 {
			return bad()
		}
	default:
		return bad()
	}
	return dt, nil
}

// pyParser reads the small subset of Python literals in .npy headers.
type pyParser struct {
	s string
	i int
}

func (p *pyParser) ws() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r' || p.s[p.i] == 0) {
		p.i++
	}
}

func (p *pyParser) peek() byte {
	p.ws()
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *pyParser) eat(c byte) bool {
	if p.peek() == c {
		p.i++
		return true
	}
	return false
}

func (p *pyParser) word(w string) bool {
	p.ws()
	if strings.HasPrefix(p.s[p.i:], w) {
		p.i += len(w)
		return true
	}
	return false
}

func (p *pyParser) str() (string, error) {
	q := p.peek()
	if q != '\'' && q != '"' {
		return "", errors.New("expected a quoted string")
	}
	j := strings.IndexByte(p.s[p.i+1:], q)
	if j < 0 {
		return "", errors.New("unterminated string")
	}
	v := p.s[p.i+1 : p.i+1+j]
	if strings.IndexByte(v, '\\') >= 0 {
		return "", errors.New("escapes in strings are not supported")
	}
	p.i += j + 2
	return v, nil
}

// tuple reads a tuple of non-negative integers (Python 2's "3L" included).
func (p *pyParser) tuple() ([]int64, error) {
	if !p.eat('(') {
		return nil, errors.New("expected a tuple")
	}
	var t []int64
	for {
		if p.eat(')') {
			return t, nil
		}
		p.ws()
		j := p.i
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
		if j == p.i {
			return nil, errors.New("expected a non-negative integer")
		}
		v, err := strconv.ParseInt(p.s[j:p.i], 10, 64)
		if err != nil || v > 1<<50 {
			return nil, fmt.Errorf("dimension %s is too large", p.s[j:p.i])
		}
		if p.i < len(p.s) && p.s[p.i] == 'L' {
			p.i++
		}
		if len(t) == 32 {
			return nil, errors.New("more than 32 dimensions")
		}
		t = append(t, v)
		if !p.eat(',') {
			if !p.eat(')') {
				return nil, errors.New("expected ',' or ')'")
			}
			return t, nil
		}
	}
}

// rows and cols of an array used as a data matrix: 1-D (n,) is n×1.
func (h *npyHeader) matrixShape() (n, d int64, ok bool) {
	switch len(h.shape) {
	case 1:
		return h.shape[0], 1, true
	case 2:
		return h.shape[0], h.shape[1], true
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
			return 0, 0, fmt.Errorf("labels have shape %s; want a 1-D array (n,) or a column (n, 1)", h.shapeString())
		}
		return 0, 0, fmt.Errorf("features have shape %s; want a 2-D array (n, d) (or 1-D (n,) for one feature)", h.shapeString())
	}
	if labels && d != 1 {
		return 0, 0, fmt.Errorf("labels have shape %s; want a 1-D array (n,) or a column (n, 1)", h.shapeString())
	}
	if n == 0 || d == 0 {
		return 0, 0, fmt.Errorf("array of shape %s is empty", h.shapeString())
	}
	if n > (1<<62)/d/8 {
		return 0, 0, fmt.Errorf("%w: shape %s is too large", ErrTooLarge, h.shapeString())
	}
	if lim.overElements(n, d) {
		msg := lim.elementsMsg(n, d, false, "; raise MaxElements to allow more")
		return 0, 0, fmt.Errorf("%w%s", ErrTooLarge, strings.TrimPrefix(msg, ErrTooLarge.Error()))
	}
	return n, d, nil
}

// dataBytes is the size of the array's data in bytes.
func (h *npyHeader) dataBytes() int64 { return h.count() * int64(h.dtype.size) }

// placement maps storage order to the row-major destination.
type placement struct {
	n, d    int
	fortran bool // storage is column-major: element e is (e mod n, e div n)
}

// decodeChunk converts the elements of src (whole elements of dtype dt,
// storage positions e0, e0+1, ...) into dst (row-major n×d) and returns
// the first storage position of a non-finite float, or -1.
func decodeChunk(dst []float64, src []byte, dt npyDtype, e0 int, pl placement, tmp []float64) int {
	cnt := len(src) / dt.size
	var out []float64
	if !pl.fortran || pl.d == 1 || pl.n == 1 {
		out = dst[e0 : e0+cnt]
	} else {
		out = tmp[:cnt]
	}
	bad := decodeValues(out, src, dt)
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

// decodeValues converts len(out) elements from src and returns the index of
// the first non-finite float, or -1.
func decodeValues(out []float64, src []byte, dt npyDtype) int {
	var le binary.ByteOrder = binary.LittleEndian
	if dt.big {
		le = binary.BigEndian
	}
	switch {
	case dt.kind == 'f' && dt.size == 8 && !dt.big && len(out) > 0 && uintptr(unsafe.Pointer(unsafe.SliceData(src)))%8 == 0:
		copy(out, unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(src))), len(out)))
	case dt.kind == 'f' && dt.size == 8:
		for k := range out {
			out[k] = math.Float64frombits(le.Uint64(src[8*k:]))
		}
	case dt.kind == 'f':
		for k := range out {
			out[k] = float64(math.Float32frombits(le.Uint32(src[4*k:])))
		}
	case dt.kind == 'i' && dt.size == 8:
		for k := range out {
			out[k] = float64(int64(le.Uint64(src[8*k:])))
		}
	case dt.kind == 'i' && dt.size == 4:
		for k := range out {
			out[k] = float64(int32(le.Uint32(src[4*k:])))
		}
	case dt.kind == 'i' && dt.size == 2:
		for k := range out {
			out[k] = float64(int16(le.Uint16(src[2*k:])))
		}
	case dt.kind == 'i':
		for k := range out {
			out[k] = float64(int8(src[k]))
		}
	case dt.kind == 'u' && dt.size == 8:
		for k := range out {
			out[k] = float64(le.Uint64(src[8*k:]))
		}
	case dt.kind == 'u' && dt.size == 4:
		for k := range out {
			out[k] = float64(le.Uint32(src[4*k:]))
		}
	case dt.kind == 'u' && dt.size == 2:
		for k := range out {
			out[k] = float64(le.Uint16(src[2*k:]))
		}
	case dt.kind == 'u':
		for k := range out {
			out[k] = float64(src[k])
		}
	case dt.kind == 'b':
		for k := range out {
			out[k] = 0
			if src[k] != 0 {
				out[k] = 1
			}
		}
	}
	if dt.kind == 'f' {
		for k, v := range out {
			if v-v != 0 {
				return k
			}
		}
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
func decodeArray(dst []float64, src npySource, dt npyDtype, pl placement, workers int) error {
	total := len(dst)
	if src.sequential() {
		workers = 1
	}
	workers = min(par.Workers(workers), max(1, total/npyChunkElems))
	errs := make([]error, workers)
	direct := dt.kind == 'f' && dt.size == 8 && !dt.big && !(pl.fortran && pl.d > 1 && pl.n > 1)
	par.Blocks(total, workers, func(w, lo, hi int) {
		var buf []byte
		var tmp []float64
		if !direct {
			buf = make([]byte, min(hi-lo, npyChunkElems)*dt.size)
			tmp = make([]float64, min(hi-lo, npyChunkElems))
		}
		for e := lo; e < hi; e += npyChunkElems {
			cnt := min(npyChunkElems, hi-e)
			b := buf
			if direct { // read straight into the destination
				b = unsafe.Slice((*byte)(unsafe.Pointer(&dst[e])), 8*cnt)
			}
			chunk, err := src.chunk(int64(e)*int64(dt.size), int64(cnt)*int64(dt.size), b)
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
