package progress

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestETA(t *testing.T) {
	for _, c := range []struct {
		elapsed     time.Duration
		done, total float64
		want        time.Duration
		ok          bool
	}{
		{10 * time.Second, 1, 4, 30 * time.Second, true},    // a quarter in 10 s: 30 s to go
		{10 * time.Second, 0.5, 1, 10 * time.Second, true},  // half
		{3 * time.Second, 300, 1000, 7 * time.Second, true}, // 3 s for 300 of 1000
		{90 * time.Minute, 9, 10, 10 * time.Minute, true},   // long runs keep their precision
		{10 * time.Second, 4, 4, 0, true},                   // finished
		{10 * time.Second, 5, 4, 0, true},                   // over-estimated total: nothing left, never negative
		{10 * time.Second, 0, 4, 0, false},                  // nothing done: no rate yet
		{0, 0, 0, 0, false},                                 // nothing to do
		{10 * time.Second, 1, 0, 0, false},                  // no total
	} {
		got, ok := ETA(c.elapsed, c.done, c.total)
		if got != c.want || ok != c.ok {
			t.Errorf("ETA(%v, %g, %g) = %v, %v; want %v, %v", c.elapsed, c.done, c.total, got, ok, c.want, c.ok)
		}
	}
}

// lockedBuffer is a bytes.Buffer safe for the Every goroutine.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestNotTerminal: on a buffer, a pipe, a file and /dev/null (a character
// device, but not a terminal) the line writes nothing at all.
func TestNotTerminal(t *testing.T) {
	var buf lockedBuffer
	l := NewLine(&buf)
	if l.On() {
		t.Fatal("a bytes.Buffer is taken for a terminal")
	}
	l.Draw("50%")
	l.DrawEvery(0, "60%")
	calls := 0
	l.Every(time.Millisecond, func() { calls++; l.Draw("tick") })
	time.Sleep(20 * time.Millisecond)
	l.Close()
	if buf.String() != "" || calls != 0 {
		t.Fatalf("wrote %q, rendered %d times", buf.String(), calls)
	}

	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	files := []*os.File{pw, f}
	if null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0); err == nil {
		defer null.Close()
		files = append(files, null)
	}
	for _, f := range files {
		if IsTerminal(f) {
			t.Errorf("%s is taken for a terminal", f.Name())
		}
		l := NewLine(f)
		l.Draw("50%")
		l.Close()
	}
	if st, _ := f.Stat(); st.Size() != 0 {
		t.Errorf("the line wrote %d bytes to a file", st.Size())
	}
}

// TestIsTerminal opens a pseudo-terminal, which is one.
func TestIsTerminal(t *testing.T) {
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer ptmx.Close()
	if !IsTerminal(ptmx) {
		t.Fatal("a pseudo-terminal is not taken for a terminal")
	}
}

func TestLineRedraws(t *testing.T) {
	var buf lockedBuffer
	l := newLine(&buf, true)
	l.Draw("[1/3] 33%")
	l.Draw("[2/3] 67% ETA 1s") // longer
	l.Draw("[3/3] 100%")       // shorter: blanks out the 6 runes left of the previous one
	l.Close()
	l.Draw("after close")
	l.Close()
	want := "\r[1/3] 33%" + "\r[2/3] 67% ETA 1s" + "\r[3/3] 100%" + strings.Repeat(" ", 6) + "\n"
	if got := buf.String(); got != want {
		t.Fatalf("wrote %q, want %q", got, want)
	}

	// Widths count runes, not bytes (γ, ±, ≈ are two bytes).
	buf = lockedBuffer{}
	l = newLine(&buf, true)
	l.Draw("γ ≈ 1")
	l.Draw("x")
	l.Close()
	if got := buf.String(); got != "\rγ ≈ 1\rx    \n" {
		t.Fatalf("wrote %q", got)
	}

	// A line never drawn ends with no newline.
	buf = lockedBuffer{}
	l = newLine(&buf, true)
	l.Close()
	if buf.String() != "" {
		t.Fatalf("an undrawn line wrote %q", buf.String())
	}
}

func TestDrawEvery(t *testing.T) {
	var buf lockedBuffer
	l := newLine(&buf, true)
	l.DrawEvery(time.Hour, "a") // the first draw is never held back
	l.DrawEvery(time.Hour, "b") // within the hour: dropped
	l.Draw("c")                 // Draw is not throttled
	time.Sleep(2 * time.Millisecond)
	l.DrawEvery(time.Millisecond, "d")
	l.Close()
	if got := buf.String(); got != "\ra\rc\rd\n" {
		t.Fatalf("wrote %q", got)
	}
}

func TestEvery(t *testing.T) {
	var buf lockedBuffer
	l := newLine(&buf, true)
	var mu sync.Mutex
	n := 0
	l.Every(time.Millisecond, func() {
		mu.Lock()
		defer mu.Unlock()
		n++
		if n > 1 { // the first redraw has nothing to show yet
			l.Draw("tick")
		}
	})
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(buf.String(), "\rtick") {
		if time.Now().After(deadline) {
			t.Fatal("Every never redrew the line")
		}
		time.Sleep(time.Millisecond)
	}
	l.Close()
	mu.Lock()
	after := n
	mu.Unlock()
	out := buf.String()
	time.Sleep(10 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if n != after || buf.String() != out {
		t.Fatalf("the line was redrawn after Close (%d renders, then %d)", after, n)
	}
	if !strings.HasPrefix(out, "\rtick") || !strings.HasSuffix(out, "\n") || strings.Count(out, "\n") != 1 {
		t.Fatalf("wrote %q", out)
	}
}

// TestClear: Clear blanks the drawn text and returns the cursor to the start
// of the line, so that a message takes its place; the next Draw starts
// afresh, and a cleared line that is not drawn again ends with no newline.
func TestClear(t *testing.T) {
	var buf lockedBuffer
	l := newLine(&buf, true)
	l.Clear() // nothing drawn: nothing to clear
	l.Draw("abc")
	l.Clear()
	io.WriteString(&buf, "warning: x\n")
	l.Draw("de")
	l.Clear()
	l.Close()
	want := "\rabc" + "\r   \r" + "warning: x\n" + "\rde" + "\r  \r"
	if got := buf.String(); got != want {
		t.Fatalf("wrote %q, want %q", got, want)
	}
	off := newLine(&buf, false)
	off.Draw("x")
	off.Clear()
	if got := buf.String(); got != want {
		t.Fatalf("a line off a terminal wrote %q", got[len(want):])
	}
}
