// Package progress is the status line of the long commands (pairgossip run,
// sweep run, reproduce): one line on stderr, redrawn in place with a carriage
// return while the work goes on, and the estimate of the time left that it
// shows. The line is drawn only when its writer is a terminal; on a file, a
// pipe or a log it writes nothing at all.
package progress

import (
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mattn/go-isatty"
)

// IsTerminal reports whether w is a terminal (an *os.File on a tty).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

// ETA estimates the time left when done of total units of work took
// elapsed, assuming the rest goes at the same rate:
// elapsed·(total − done)/done. ok is false while nothing is done yet (no
// rate to go by) or when total is not positive.
func ETA(elapsed time.Duration, done, total float64) (left time.Duration, ok bool) {
	if !(done > 0) || !(total > 0) {
		return 0, false
	}
	if done >= total {
		return 0, true
	}
	return Clamp(float64(elapsed) * (total - done) / done), true
}

// MaxETA is the longest time left an estimate reports: a run of 2^53
// iterations at a few per second would overflow a time.Duration (which
// wraps to a negative value), and nothing longer than a century needs
// telling apart. FormatETA shows it as "> 100y".
const MaxETA = 100 * 365 * 24 * time.Hour

// Clamp converts nanoseconds to a Duration within [0, MaxETA].
func Clamp(ns float64) time.Duration {
	switch {
	case !(ns > 0): // NaN too
		return 0
	case ns >= float64(MaxETA):
		return MaxETA
	}
	return time.Duration(ns)
}

// FormatETA writes a time left rounded to the second, or "> 100y" at MaxETA.
func FormatETA(d time.Duration) string {
	if d >= MaxETA {
		return "> 100y"
	}
	return d.Round(time.Second).String()
}

// Line is a status line redrawn in place: each Draw writes "\r", the text,
// and enough spaces to blank out the rest of a longer line drawn before.
// Close ends it with a newline. All of it is a no-op when the writer is not
// a terminal. A Line is safe for concurrent use.
type Line struct {
	w     io.Writer
	on    bool
	start time.Time

	mu    sync.Mutex
	width int       // the widest text drawn so far, in runes
	last  time.Time // when it was last drawn
	drawn bool
	// closing is set by the first Close, done once it has finished.
	closing, done bool

	stop chan struct{} // closed by Close; ends the Every goroutine
	wg   sync.WaitGroup
}

// NewLine returns a status line on w, drawn only when w is a terminal.
func NewLine(w io.Writer) *Line { return newLine(w, IsTerminal(w)) }

func newLine(w io.Writer, on bool) *Line {
	return &Line{w: w, on: on, start: time.Now(), stop: make(chan struct{})}
}

// On reports whether the line is drawn (its writer is a terminal). Callers
// may skip building the text when it is not.
func (l *Line) On() bool { return l.on }

// Elapsed is the time since the line was created.
func (l *Line) Elapsed() time.Duration { return time.Since(l.start) }

// Draw redraws the line with text.
func (l *Line) Draw(text string) {
	if !l.on {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.draw(text)
}

// DrawEvery redraws the line with text unless it was drawn less than min
// ago (for callers updated more often than a person can read).
func (l *Line) DrawEvery(min time.Duration, text string) {
	if !l.on {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.drawn && time.Since(l.last) < min {
		return
	}
	l.draw(text)
}

// Every calls redraw every period until Close, for a line that shows the
// elapsed time between the updates of the work itself; redraw calls Draw.
// Nothing is called when the writer is not a terminal.
func (l *Line) Every(period time.Duration, redraw func()) {
	if !l.on {
		return
	}
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				redraw()
			case <-l.stop:
				return
			}
		}
	}()
}

func (l *Line) draw(text string) {
	if l.done {
		return
	}
	n := utf8.RuneCountInString(text)
	pad := max(l.width-n, 0)
	l.width = max(l.width, n)
	io.WriteString(l.w, "\r"+text+strings.Repeat(" ", pad))
	l.drawn, l.last = true, time.Now()
}

// Clear erases the line, so that a message can be written on stderr in its
// place; the next Draw draws it again.
func (l *Line) Clear() {
	if !l.on {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.drawn || l.done {
		return
	}
	io.WriteString(l.w, "\r"+strings.Repeat(" ", l.width)+"\r")
	l.width, l.drawn = 0, false
}

// Close stops the redrawing of Every and, if the line was drawn, ends it
// with a newline so that what follows starts on a line of its own. Draws
// after Close write nothing. Close may be called more than once.
func (l *Line) Close() {
	if !l.on {
		return
	}
	l.mu.Lock()
	if l.closing {
		l.mu.Unlock()
		return
	}
	l.closing = true
	close(l.stop)
	l.mu.Unlock()
	l.wg.Wait() // the Every goroutine may be waiting for mu in Draw; the caller must not hold what redraw locks
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.drawn {
		io.WriteString(l.w, "\n")
	}
	l.done = true
}
