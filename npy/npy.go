// Package npy is the project's one codec of NumPy's .npy format: the
// header (versions 1.0, 2.0 and 3.0, the dtypes of ParseDtype, C or
// Fortran order) and the element decoding, which dataset loading uses
// (memory-mapped and in parallel, in package dataset), and Read and Write,
// which `run --save-model` (output.SaveModel) and programs that
// read a saved model back use. Write writes little-endian float64 in C
// order, format version 1.0 (the data on a 64-byte boundary), which
// numpy.load(path, mmap_mode="r") maps.
package npy

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"unsafe"
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

// Magic starts every .npy file.
const Magic = "\x93NUMPY"

// MaxHeaderBytes is the largest .npy header (the dictionary text) the
// readers accept; NumPy writes about 128 bytes for a 2-D array and refuses
// to read headers over 10 000 bytes by default.
const MaxHeaderBytes = 1 << 16

// Dtype is a supported element type.
type Dtype struct {
	Descr string // as in the header, e.g. "<f8"
	Kind  byte   // 'f' float, 'i' signed, 'u' unsigned, 'b' bool
	Size  int    // bytes per element
	Big   bool   // big-endian
}

// Header is a parsed .npy header.
type Header struct {
	Major, Minor int // format version
	Dtype        Dtype
	Fortran      bool // column-major storage
	Shape        []int64
	DataOff      int64 // offset of the data from the start of the array's bytes
}

// Count returns the number of elements (the shape's product has been
// checked against overflow when the header was parsed).
func (h *Header) Count() int64 {
	c := int64(1)
	for _, s := range h.Shape {
		c *= s
	}
	return c
}

func (h *Header) ShapeString() string {
	parts := make([]string, len(h.Shape))
	for i, s := range h.Shape {
		parts[i] = strconv.FormatInt(s, 10)
	}
	if len(parts) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// ReadHeader reads the magic, version and header from r, reading no more
// than the header's bytes (so r is left at the start of the data).
func ReadHeader(r io.Reader) (Header, error) {
	var h Header
	var pre [10]byte
	if n, err := io.ReadFull(r, pre[:8]); err != nil {
		if n == 0 && err == io.EOF {
			return h, errors.New("empty file (not a .npy file)")
		}
		if string(pre[:n]) == Magic[:min(n, 6)] {
			return h, fmt.Errorf("truncated: %d bytes, shorter than the .npy preamble", n)
		}
		return h, fmt.Errorf("not a .npy file: it starts with %q, not the magic %q", pre[:n], Magic)
	}
	if string(pre[:6]) != Magic {
		return h, fmt.Errorf("not a .npy file: it starts with %q, not the magic %q", pre[:6], Magic)
	}
	h.Major, h.Minor = int(pre[6]), int(pre[7])
	var hlen int64
	switch {
	case h.Major == 1 && h.Minor == 0:
		if _, err := io.ReadFull(r, pre[8:10]); err != nil {
			return h, errors.New("truncated in the header length")
		}
		hlen = int64(binary.LittleEndian.Uint16(pre[8:10]))
		h.DataOff = 10 + hlen
	case (h.Major == 2 || h.Major == 3) && h.Minor == 0:
		var l [4]byte
		if _, err := io.ReadFull(r, l[:]); err != nil {
			return h, errors.New("truncated in the header length")
		}
		hlen = int64(binary.LittleEndian.Uint32(l[:]))
		h.DataOff = 12 + hlen
	default:
		return h, fmt.Errorf("unsupported .npy format version %d.%d (supported: 1.0, 2.0, 3.0)", h.Major, h.Minor)
	}
	if hlen > MaxHeaderBytes {
		return h, fmt.Errorf("header of %d bytes is larger than the limit of %d bytes (a .npy header is normally about 128 bytes)", hlen, MaxHeaderBytes)
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
func (h *Header) parseDict(s string) error {
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
			if h.Dtype, err = ParseDtype(d); err != nil {
				return err
			}
		case "fortran_order":
			switch {
			case p.word("True"):
				h.Fortran = true
			case p.word("False"):
				h.Fortran = false
			default:
				return errors.New("fortran_order is not True or False")
			}
		case "shape":
			if h.Shape, err = p.tuple(); err != nil {
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

// ParseDtype accepts little- and big-endian floats of 4 and 8 bytes, signed
// and unsigned integers of 1, 2, 4 and 8 bytes, and bool.
func ParseDtype(d string) (Dtype, error) {
	bad := func() (Dtype, error) {
		return Dtype{}, fmt.Errorf("unsupported dtype %q (supported: float64 '<f8', float32 '<f4', int64 '<i8', int32 '<i4', int16, int8 '|i1', uint8 '|u1', uint16/32/64, bool '|b1', little- or big-endian)", d)
	}
	if len(d) < 3 {
		return bad()
	}
	dt := Dtype{Descr: d, Kind: d[1]}
	size, err := strconv.Atoi(d[2:])
	if err != nil {
		return bad()
	}
	dt.Size = size
	switch dt.Kind {
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
		dt.Big = size > 1
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

// DataBytes is the size of the array's data in bytes.
func (h *Header) DataBytes() int64 { return h.Count() * int64(h.Dtype.Size) }

// DecodeValues converts len(out) elements from src and returns the index of
// the first non-finite float, or -1.
func DecodeValues(out []float64, src []byte, dt Dtype) int {
	var le binary.ByteOrder = binary.LittleEndian
	if dt.Big {
		le = binary.BigEndian
	}
	switch {
	case dt.Kind == 'f' && dt.Size == 8 && !dt.Big && len(out) > 0 && uintptr(unsafe.Pointer(unsafe.SliceData(src)))%8 == 0:
		copy(out, unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(src))), len(out)))
	case dt.Kind == 'f' && dt.Size == 8:
		for k := range out {
			out[k] = math.Float64frombits(le.Uint64(src[8*k:]))
		}
	case dt.Kind == 'f':
		for k := range out {
			out[k] = float64(math.Float32frombits(le.Uint32(src[4*k:])))
		}
	case dt.Kind == 'i' && dt.Size == 8:
		for k := range out {
			out[k] = float64(int64(le.Uint64(src[8*k:])))
		}
	case dt.Kind == 'i' && dt.Size == 4:
		for k := range out {
			out[k] = float64(int32(le.Uint32(src[4*k:])))
		}
	case dt.Kind == 'i' && dt.Size == 2:
		for k := range out {
			out[k] = float64(int16(le.Uint16(src[2*k:])))
		}
	case dt.Kind == 'i':
		for k := range out {
			out[k] = float64(int8(src[k]))
		}
	case dt.Kind == 'u' && dt.Size == 8:
		for k := range out {
			out[k] = float64(le.Uint64(src[8*k:]))
		}
	case dt.Kind == 'u' && dt.Size == 4:
		for k := range out {
			out[k] = float64(le.Uint32(src[4*k:]))
		}
	case dt.Kind == 'u' && dt.Size == 2:
		for k := range out {
			out[k] = float64(le.Uint16(src[2*k:]))
		}
	case dt.Kind == 'u':
		for k := range out {
			out[k] = float64(src[k])
		}
	case dt.Kind == 'b':
		for k := range out {
			out[k] = 0
			if src[k] != 0 {
				out[k] = 1
			}
		}
	}
	if dt.Kind == 'f' {
		for k, v := range out {
			if v-v != 0 {
				return k
			}
		}
	}
	return -1
}

// Array is an array read by Read: its header and its values converted to
// float64 in C (row-major) order, whatever the file's dtype and order.
type Array struct {
	Header Header
	Shape  []int
	Data   []float64
}

// MaxReadElements bounds the arrays Read accepts (2³¹ elements, 16 GiB of
// float64): a header claiming more is refused before anything is
// allocated. Package dataset has its own, configurable limits.
const MaxReadElements = 1 << 31

// Read reads one .npy array from r: the header, then the data converted to
// float64 in C order (a Fortran-order array is transposed). Non-finite
// floats are kept as they are. A header it does not accept, or data
// shorter than the header says, is an error.
func Read(r io.Reader) (*Array, error) {
	h, err := ReadHeader(r)
	if err != nil {
		return nil, err
	}
	if h.Count() > MaxReadElements {
		return nil, fmt.Errorf("array of shape %s is larger than %d elements", h.ShapeString(), int64(MaxReadElements))
	}
	a := &Array{Header: h, Shape: make([]int, len(h.Shape))}
	for i, s := range h.Shape {
		a.Shape[i] = int(s)
	}
	n := int(h.Count())
	raw := make([]byte, n*h.Dtype.Size)
	if k, err := io.ReadFull(r, raw); err != nil {
		return nil, fmt.Errorf("truncated: %d of the %d bytes of a %s array of shape %s", k, len(raw), h.Dtype.Descr, h.ShapeString())
	}
	a.Data = make([]float64, n)
	DecodeValues(a.Data, raw, h.Dtype)
	if h.Fortran && len(a.Shape) > 1 {
		a.Data = fortranToC(a.Data, a.Shape)
	}
	return a, nil
}

// fortranToC reorders the elements of a column-major array of this shape
// into row-major order.
func fortranToC(v []float64, shape []int) []float64 {
	out := make([]float64, len(v))
	idx := make([]int, len(shape))
	for e := range v { // e walks the Fortran order: the first index fastest
		c := 0
		for k := range shape {
			c = c*shape[k] + idx[k]
		}
		out[c] = v[e]
		for k := 0; k < len(shape); k++ {
			if idx[k]++; idx[k] < shape[k] {
				break
			}
			idx[k] = 0
		}
	}
	return out
}

// ReadFile reads the .npy file at path (Read), naming the file in errors.
func ReadFile(path string) (*Array, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	a, err := Read(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

// HeaderBytes returns the version 1.0 preamble (magic, version, header
// length and the header dictionary padded with spaces and a newline so
// that the data start on a 64-byte boundary) of a little-endian float64
// C-order array of this shape.
func HeaderBytes(shape ...int) []byte {
	dims := make([]string, len(shape))
	for i, v := range shape {
		dims[i] = strconv.Itoa(v)
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
	h = append(h, Magic...)
	h = append(h, 1, 0)
	h = binary.LittleEndian.AppendUint16(h, uint16(len(dict)+pad+1))
	h = append(h, dict...)
	for i := 0; i < pad; i++ {
		h = append(h, ' ')
	}
	return append(h, '\n')
}

// Size is the size in bytes of the file Write writes for this shape.
func Size(shape ...int) int64 {
	n := int64(1)
	for _, s := range shape {
		n *= int64(s)
	}
	return int64(len(HeaderBytes(shape...))) + 8*n
}

// Write writes data, the elements of an array of this shape in C order,
// as a .npy file (HeaderBytes, then little-endian float64).
func Write(w io.Writer, shape []int, data []float64) error {
	return WriteRows(w, shape, func(yield func([]float64) error) error { return yield(data) })
}

// WriteRows is Write with the data given piece by piece, in C order: rows
// calls yield with consecutive runs of elements (the rows of a strided
// matrix, without copying it whole). The element count must match the
// shape.
func WriteRows(w io.Writer, shape []int, rows func(yield func([]float64) error) error) error {
	want := int64(1)
	for _, s := range shape {
		if s < 0 {
			return fmt.Errorf("npy: negative dimension in shape %v", shape)
		}
		want *= int64(s)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	if _, err := bw.Write(HeaderBytes(shape...)); err != nil {
		return err
	}
	var got int64
	var buf []byte
	err := rows(func(v []float64) error {
		got += int64(len(v))
		if got > want {
			return fmt.Errorf("npy: more elements than the shape %v holds", shape)
		}
		buf = buf[:0]
		for _, x := range v {
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(x))
		}
		_, err := bw.Write(buf)
		return err
	})
	if err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("npy: %d elements for the shape %v (%d)", got, shape, want)
	}
	return bw.Flush()
}
