package network

import (
	"bufio"
	"bytes"
	"fmt"
	"github.com/pairgossip/pairgossip/internal/atomicfile"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Stream is a recorded edge stream held in memory: iteration T[x] activates
// the edge (I[x], J[x]), T strictly increasing. Memory: 16 bytes per line
// (an int64 and two int32), e.g. 160 MB for 10⁷ activations. A Stream is
// not modified after it is read, so runs may share one; each Net keeps its
// own replay cursor.
type Stream struct {
	Name string // the file, for messages
	T    []int64
	I, J []int32
}

// Last returns the last iteration the stream covers (0 when empty).
func (s *Stream) Last() int64 {
	if len(s.T) == 0 {
		return 0
	}
	return s.T[len(s.T)-1]
}

// At returns the edge of iteration t, ok false when t has no line (a
// binary search; Net.Edge uses a cursor instead).
func (s *Stream) At(t int64) (i, j int, ok bool) {
	x := 0
	return s.at(&x, t)
}

// at is At from the cursor *cur (the first line with T >= the t asked
// last): O(1) for increasing t, a binary search otherwise.
func (s *Stream) at(cur *int, t int64) (i, j int, ok bool) {
	x := *cur
	if x > 0 && s.T[x-1] >= t || x == 0 && len(s.T) > 0 && s.T[0] < t {
		lo, hi := 0, len(s.T)
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if s.T[m] < t {
				lo = m + 1
			} else {
				hi = m
			}
		}
		x = lo
	}
	for x < len(s.T) && s.T[x] < t {
		x++
	}
	*cur = x
	if x < len(s.T) && s.T[x] == t {
		return int(s.I[x]), int(s.J[x]), true
	}
	return 0, 0, false
}

// StreamReader reads `t i j` lines one by one (0-based node ids, '#'
// comments, blank lines ignored), checking that t is a strictly increasing
// positive integer and that i ≠ j lie in [0, n). Errors name name:line.
type StreamReader struct {
	sc    *bufio.Scanner
	name  string
	n     int
	line  int
	prevT int64
}

// NewStreamReader reads the stream from r; name labels it in errors.
func NewStreamReader(r io.Reader, name string, n int) *StreamReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	return &StreamReader{sc: sc, name: name, n: n}
}

// Next returns the next activation; io.EOF at the end.
func (r *StreamReader) Next() (t int64, i, j int, err error) {
	for r.sc.Scan() {
		r.line++
		s, _, _ := strings.Cut(r.sc.Text(), "#")
		fs := strings.Fields(s)
		if len(fs) == 0 {
			continue
		}
		bad := func(format string, a ...any) (int64, int, int, error) {
			return 0, 0, 0, fmt.Errorf("--edge-stream: %s:%d: %s", r.name, r.line, fmt.Sprintf(format, a...))
		}
		if len(fs) != 3 {
			return bad("expected `t i j`, got %q", strings.TrimSpace(s))
		}
		t, e1 := strconv.ParseInt(fs[0], 10, 64)
		a, e2 := strconv.ParseInt(fs[1], 10, 64)
		b, e3 := strconv.ParseInt(fs[2], 10, 64)
		switch {
		case e1 != nil || e2 != nil || e3 != nil:
			return bad("expected three integers, got %q", strings.TrimSpace(s))
		case t < 1:
			return bad("iteration %d is not a positive integer", t)
		case t <= r.prevT:
			return bad("iteration %d does not follow %d (iterations must strictly increase)", t, r.prevT)
		case a < 0 || b < 0 || a >= int64(r.n) || b >= int64(r.n):
			return bad("edge (%d, %d) has a node id outside [0, %d)", a, b, r.n)
		case a == b:
			return bad("edge (%d, %d) is a self-loop", a, b)
		}
		r.prevT = t
		return t, int(a), int(b), nil
	}
	if err := r.sc.Err(); err != nil {
		return 0, 0, 0, fmt.Errorf("--edge-stream: %s:%d: %w", r.name, r.line+1, err)
	}
	return 0, 0, 0, io.EOF
}

// Line returns the line of the activation Next returned last.
func (r *StreamReader) Line() int { return r.line }

// StreamOrigin reads the header a stream written by --write-edges starts
// with (StreamHeader: '#' lines naming the seed and the network of the run
// that wrote it); ok is false for a stream without one (a contact trace).
// Only the leading comment lines are read.
func StreamOrigin(path string) (seed uint64, model string, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, 1<<16))
	sc.Buffer(make([]byte, 0, 4096), 1<<16)
	var hasSeed, hasNet, ours bool
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		c, isComment := strings.CutPrefix(line, "#")
		if !isComment {
			break
		}
		c = strings.TrimSpace(c)
		switch {
		case strings.HasPrefix(c, "pairgossip edge stream:"):
			ours = true
		case strings.HasPrefix(c, "seed "):
			v, err := strconv.ParseUint(strings.TrimPrefix(c, "seed "), 10, 64)
			seed, hasSeed = v, err == nil
		case strings.HasPrefix(c, "network "):
			model, hasNet = strings.TrimPrefix(c, "network "), true
		}
	}
	return seed, model, ours && hasSeed && hasNet
}

// ReplayNote says how a replay of a stream that --write-edges wrote differs
// from the run that wrote it ("" if it does not, or the stream has no
// header): a replay gives that run's bits only with its seed and its model
// (the loss, churn and delays still drawn; docs/networks.md §7). m is the
// replaying run's model, whose stream itself is left out of the comparison.
func ReplayNote(path string, seed uint64, m Model) string {
	wSeed, wModel, ok := StreamOrigin(path)
	if !ok {
		return ""
	}
	empirical := m.StreamP == "empirical"
	m.EdgeStream, m.Stream, m.StreamP = "", nil, ""
	model := m.String()
	if wSeed == seed && wModel == model && !empirical {
		return ""
	}
	why := ""
	if empirical {
		// The writer's p_k (its 1/p_k weights) were its graph's.
		why = " and --stream-p empirical (p_k from the stream's frequencies; the writer's were its graph's)"
	}
	return fmt.Sprintf("--edge-stream %s was written by a run with seed %d and network %s; this run has seed %d and network %s%s: "+
		"it replays those edges, but it is not that run", path, wSeed, wModel, seed, model, why)
}

// ReadStream reads a whole stream file into memory (16 bytes per line).
// A regular file's lines are counted first, so that the arrays are
// allocated once at their size (grown by appends, they peaked at about
// twice it).
func ReadStream(path string, n int) (*Stream, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--edge-stream: %w", err)
	}
	defer f.Close()
	lines := 0
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		if lines, err = countLines(f); err != nil {
			return nil, fmt.Errorf("--edge-stream: %w", err)
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, fmt.Errorf("--edge-stream: %w", err)
		}
	}
	return parseStream(f, path, n, lines)
}

// countLines counts the lines of r (a last line without a newline
// included).
func countLines(r io.Reader) (int, error) {
	buf := make([]byte, 1<<20)
	lines, last := 0, byte('\n')
	for {
		k, err := r.Read(buf)
		if k > 0 {
			lines += bytes.Count(buf[:k], []byte{'\n'})
			last = buf[k-1]
		}
		if err == io.EOF {
			if last != '\n' {
				lines++
			}
			return lines, nil
		}
		if err != nil {
			return 0, err
		}
	}
}

// streamLine returns ":L", L the line of file name that holds its
// activation x (0-based), for a message about it: the file is read again
// (an error is rare; a Stream keeps no line numbers, 4 bytes an
// activation); "" when it cannot be (a pipe read once, or changed since).
func streamLine(name string, x int) string {
	f, err := os.Open(name)
	if err != nil {
		return ""
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	r := NewStreamReader(f, name, math.MaxInt32)
	for k := 0; k <= x; k++ {
		if _, _, _, err := r.Next(); err != nil {
			return ""
		}
	}
	return fmt.Sprintf(":%d", r.Line())
}

// ParseStream reads a stream from r (see StreamReader); name labels errors.
func ParseStream(r io.Reader, name string, n int) (*Stream, error) {
	return parseStream(r, name, n, 0)
}

// parseStream is ParseStream with room for lines activations made at once
// (an upper bound: comment lines count too).
func parseStream(r io.Reader, name string, n, lines int) (*Stream, error) {
	s := &Stream{Name: name, T: make([]int64, 0, lines), I: make([]int32, 0, lines), J: make([]int32, 0, lines)}
	sr := NewStreamReader(r, name, n)
	for {
		t, i, j, err := sr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		s.T = append(s.T, t)
		s.I = append(s.I, int32(i))
		s.J = append(s.J, int32(j))
	}
	if len(s.T) == 0 {
		return nil, fmt.Errorf("--edge-stream: %s: no activations", name)
	}
	return s, nil
}

// StreamWriter writes `t i j` lines (--write-edges) to a temporary file in
// the target's directory, renamed to the target by Close, so that a reader
// never sees a partial stream under the final name.
type StreamWriter struct {
	path, tmp string
	f         *os.File
	w         *bufio.Writer
	buf       []byte
	err       error
}

// CreateStream starts a stream file at path with a header of '#' comment
// lines (each line of header is prefixed with "# "), typically naming the
// seed and the model (Model.String).
func CreateStream(path, header string) (*StreamWriter, error) {
	// What the rename will replace: a link's target, never a device
	// (atomicfile.Target).
	path, err := atomicfile.Target(path)
	if err != nil {
		return nil, fmt.Errorf("--write-edges: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), atomicfile.TempPattern(path))
	if err != nil {
		return nil, fmt.Errorf("--write-edges: %w", err)
	}
	w := &StreamWriter{path: path, tmp: f.Name(), f: f, w: bufio.NewWriterSize(f, 1<<16), buf: make([]byte, 0, 64)}
	for _, l := range strings.Split(header, "\n") {
		if l != "" {
			_, w.err = w.w.WriteString("# " + l + "\n")
		}
	}
	return w, nil
}

// Write appends the activation of iteration t. It does not allocate.
func (w *StreamWriter) Write(t int64, i, j int) error {
	if w.err != nil {
		return w.err
	}
	b := strconv.AppendInt(w.buf[:0], t, 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(i), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(j), 10)
	b = append(b, '\n')
	if _, err := w.w.Write(b); err != nil {
		w.err = fmt.Errorf("--write-edges: %s: %w", w.path, err)
	}
	return w.err
}

// Close flushes, syncs and renames the file to its final name. On an error
// the temporary file is removed.
func (w *StreamWriter) Close() error {
	err := w.err
	if err == nil {
		err = w.w.Flush()
	}
	if err == nil {
		err = w.f.Sync()
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// The mode of the run's other outputs (atomicfile.Write), not the
		// temporary file's 0600.
		err = os.Chmod(w.tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(w.tmp, w.path)
	}
	if err != nil {
		os.Remove(w.tmp)
		return fmt.Errorf("--write-edges: %s: %w", w.path, err)
	}
	return nil
}

// Abort removes the temporary file without creating the target.
func (w *StreamWriter) Abort() {
	w.f.Close()
	os.Remove(w.tmp)
}
