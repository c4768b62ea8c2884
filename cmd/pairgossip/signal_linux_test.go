//go:build linux

package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// The signal test of the issue "Nothing silent, nothing lost": SIGINT (and
// SIGHUP, handled as SIGTERM) sent to the real binary at a seeded random
// moment inside each phase — set-up, synchronous rounds, parallel
// asynchronous events, an exact measurement, the centralized optimum,
// reproduce, sweep run — must end it with exit status 130 within a second,
// and a checkpoint asked for must resume to the uninterrupted run's trace.
// The run's phase is read from its status line, which it draws on a
// terminal only: its stderr is a pseudo-terminal here.

// sigDeadline is the time from the signal to the end of the process.
const sigDeadline = time.Second

// ptyProc is a started command whose stderr is a pseudo-terminal.
type ptyProc struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	text bytes.Buffer // what it wrote on stderr
	done chan struct{}
	sent time.Time
	sig  syscall.Signal // the signal interrupt sent
}

// openPTY returns the two ends of a new pseudo-terminal.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		m.Close()
		t.Skipf("unlockpt: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		m.Close()
		t.Skipf("ptsname: %v", e)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Skipf("open the pseudo-terminal: %v", err)
	}
	return m, s
}

func startPTY(t *testing.T, bin string, args ...string) *ptyProc {
	t.Helper()
	master, slave := openPTY(t)
	p := &ptyProc{cmd: exec.Command(bin, args...), done: make(chan struct{})}
	p.cmd.Stderr = slave
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	go func() {
		defer close(p.done)
		defer master.Close()
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			p.mu.Lock()
			p.text.Write(buf[:n])
			p.mu.Unlock()
			if err != nil {
				return // EIO once the process has closed the terminal
			}
		}
	}()
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			p.cmd.Process.Kill()
			p.cmd.Wait()
		}
	})
	return p
}

// ended reports whether the process has closed its terminal (exited).
func (p *ptyProc) ended() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func (p *ptyProc) stderr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.text.String()
}

// waitFor waits until stderr holds want (the status line of a phase).
func (p *ptyProc) waitFor(t *testing.T, want string, timeout time.Duration) {
	t.Helper()
	for end := time.Now().Add(timeout); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if strings.Contains(p.stderr(), want) {
			return
		}
		if p.ended() {
			break
		}
	}
	t.Fatalf("%q never appeared on the status line: %q", want, p.stderr())
}

// waitRounds waits until the status line, as last drawn, shows the
// iterations after the measurement measured of measures, not a
// measurement: the long advance to the next measurement has begun.
func (p *ptyProc) waitRounds(t *testing.T, measured, measures int, timeout time.Duration) {
	t.Helper()
	want := fmt.Sprintf("measured %d/%d", measured, measures)
	for end := time.Now().Add(timeout); time.Now().Before(end); time.Sleep(2 * time.Millisecond) {
		s := p.stderr()
		line := s[strings.LastIndexByte(s, '\r')+1:]
		if strings.Contains(line, want) && strings.Contains(line, "iter ") && !strings.Contains(line, "measuring") {
			return
		}
		if p.ended() {
			break
		}
	}
	t.Fatalf("the rounds after measurement %d/%d never appeared on the status line: %q", measured, measures, p.stderr())
}

// interrupt sends sig after delay, and returns the exit status and the time
// from the signal to the end of the process.
func (p *ptyProc) interrupt(t *testing.T, sig syscall.Signal, delay time.Duration) (int, time.Duration) {
	t.Helper()
	time.Sleep(delay)
	p.sent, p.sig = time.Now(), sig
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("%v: %v (the process ended before the signal: %q)", sig, err, p.stderr())
	}
	waited := make(chan struct{})
	go func() { p.cmd.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(30 * time.Second):
		p.cmd.Process.Kill()
		<-waited
		t.Fatalf("still running 30 s after %v: %q", sig, p.stderr())
	}
	took := time.Since(p.sent)
	<-p.done
	return p.cmd.ProcessState.ExitCode(), took
}

// checkInterrupted asserts exit 128 + the signal's number (130 for
// SIGINT, 129 for SIGHUP) within sigDeadline and no crash.
func (p *ptyProc) checkInterrupted(t *testing.T, code int, took time.Duration, want string) {
	t.Helper()
	s := p.stderr()
	t.Logf("exit %d %v after the signal", code, took.Round(time.Millisecond))
	if code != 128+int(p.sig) || took > sigDeadline || !strings.Contains(s, want) {
		t.Errorf("exit %d %v after %v, want %d within %v and %q; stderr %q", code, took, p.sig, 128+int(p.sig), sigDeadline, want, s)
	}
	if strings.Contains(s, "panic") || strings.Contains(s, "goroutine ") || strings.Contains(s, "internal error") {
		t.Errorf("crashed: %q", s)
	}
}

// jitter is a seeded random delay in [0, max).
func jitter(r *rand.Rand, max time.Duration) time.Duration {
	return time.Duration(r.Int64N(int64(max)))
}

func TestSignalPhases(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and signals real processes")
	}
	bin := buildBinary(t)
	r := rand.New(rand.NewPCG(130, 1))

	t.Run("set-up", func(t *testing.T) {
		dir := t.TempDir()
		data := filepath.Join(dir, "never-written")
		if err := syscall.Mkfifo(data, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		out, ckpt := filepath.Join(dir, "out"), filepath.Join(dir, "c.ckpt")
		p := startPTY(t, bin, "run", "--data", data, "--out", out, "--checkpoint", ckpt)
		p.waitFor(t, "set-up: loading the data", 20*time.Second)
		code, took := p.interrupt(t, syscall.SIGINT, jitter(r, 300*time.Millisecond))
		p.checkInterrupted(t, code, took, "interrupted during the set-up; nothing was written")
		for _, f := range []string{out, ckpt} {
			if _, err := os.Stat(f); err == nil {
				t.Errorf("an interrupted set-up wrote %s", f)
			}
		}
	})

	// A run interrupted in a phase of the iterations, then resumed from its
	// checkpoint, ends with the uninterrupted run's trace and summary.
	resumable := func(t *testing.T, sig syscall.Signal, wait func(*testing.T, *ptyProc), window time.Duration, args ...string) {
		dir := t.TempDir()
		run := func(out string, extra ...string) []string {
			return append(append([]string{"run"}, args...), append([]string{"--out", filepath.Join(dir, out)}, extra...)...)
		}
		if b, err := exec.Command(bin, run("ref")...).CombinedOutput(); err != nil {
			t.Fatalf("uninterrupted run: %v\n%s", err, b)
		}
		ckpt := filepath.Join(dir, "c.ckpt")
		p := startPTY(t, bin, run("cut", "--checkpoint", ckpt, "--checkpoint-every", "50ms")...)
		wait(t, p)
		code, took := p.interrupt(t, sig, jitter(r, window))
		p.checkInterrupted(t, code, took, "pairgossip: interrupted")
		if !strings.Contains(p.stderr(), "state saved to "+ckpt) {
			t.Fatalf("no checkpoint saved: %q", p.stderr())
		}
		if b, err := exec.Command(bin, run("cut", "--checkpoint", ckpt, "--resume", ckpt)...).CombinedOutput(); err != nil {
			t.Fatalf("resumed run: %v\n%s", err, b)
		}
		for _, f := range []string{"trace.csv"} {
			a, _ := os.ReadFile(filepath.Join(dir, "ref", f))
			b, _ := os.ReadFile(filepath.Join(dir, "cut", f))
			if len(a) == 0 || !bytes.Equal(a, b) {
				t.Errorf("%s of the resumed run differs from the uninterrupted run's", f)
			}
		}
		if a, b := withoutWall(t, filepath.Join(dir, "ref", "summary.json")), withoutWall(t, filepath.Join(dir, "cut", "summary.json")); !bytes.Equal(a, b) {
			t.Errorf("summary.json of the resumed run differs from the uninterrupted run's")
		}
	}

	// The last advance, from the last measurement but one to the end: most
	// of the run.
	lastRounds := func(points int) func(*testing.T, *ptyProc) {
		return func(t *testing.T, p *ptyProc) { p.waitRounds(t, points-1, points, 60*time.Second) }
	}
	measuring := func(t *testing.T, p *ptyProc) { p.waitFor(t, "measuring (", 60*time.Second) }
	t.Run("synchronous rounds", func(t *testing.T) {
		resumable(t, syscall.SIGINT, lastRounds(6), 300*time.Millisecond,
			"--data", "synthetic-auc", "--n", "5000", "--algo", "sync", "--iters", "300000", "--eval-nodes", "4", "--log-points", "6", "--no-optimum", "--workers", "2")
	})
	t.Run("parallel asynchronous events", func(t *testing.T) {
		resumable(t, syscall.SIGINT, lastRounds(3), 300*time.Millisecond,
			"--data", "synthetic-auc", "--n", "20000", "--algo", "async", "--iters", "20000000", "--eval-nodes", "4", "--log-points", "3", "--no-optimum", "--workers", "2")
	})
	t.Run("SIGHUP", func(t *testing.T) {
		resumable(t, syscall.SIGHUP, lastRounds(3), 300*time.Millisecond,
			"--data", "synthetic-auc", "--n", "20000", "--algo", "async", "--iters", "20000000", "--eval-nodes", "4", "--log-points", "3", "--no-optimum", "--workers", "2")
	})
	t.Run("measurement", func(t *testing.T) {
		// Exact pair by pair: seconds a measurement.
		resumable(t, syscall.SIGINT, measuring, 300*time.Millisecond,
			"--data", "synthetic-auc", "--n", "16000", "--measure", "exact", "--iters", "1000", "--log-points", "2", "--no-optimum", "--workers", "2")
	})
	t.Run("optimum", func(t *testing.T) {
		dir := t.TempDir()
		// The hinge's optimum (FISTA over the chunked pairs: seconds here);
		// the smooth losses' fast optimum at this size ends before any
		// signal, and a cached one is not solved at all.
		p := startPTY(t, bin, "run", "--data", "synthetic-auc", "--n", "10000", "--problem", "auc-hinge", "--iters", "100", "--log-points", "2",
			"--eval-nodes", "4", "--no-optimum-cache", "--out", dir)
		p.waitFor(t, "solving for the centralized optimum", 60*time.Second)
		code, took := p.interrupt(t, syscall.SIGINT, jitter(r, 300*time.Millisecond))
		p.checkInterrupted(t, code, took, "pairgossip: interrupted")
		raw, _ := os.ReadFile(filepath.Join(dir, "summary.json"))
		if !bytes.Contains(raw, []byte(`"status": "cancelled"`)) {
			t.Errorf("summary.json: %s", raw)
		}
	})
	t.Run("reproduce", func(t *testing.T) {
		parent := t.TempDir()
		out := filepath.Join(parent, "report")
		p := startPTY(t, bin, "reproduce", "--quick", "--out", out)
		p.waitFor(t, "job ", 60*time.Second)
		code, took := p.interrupt(t, syscall.SIGINT, 300*time.Millisecond+jitter(r, 3*time.Second))
		p.checkInterrupted(t, code, took, "pairgossip: interrupted")
		if ents, _ := os.ReadDir(parent); len(ents) != 0 {
			t.Errorf("an interrupted reproduction left %s", ents[0].Name())
		}
	})
	t.Run("sweep run", func(t *testing.T) {
		dir := t.TempDir()
		file, db := filepath.Join(dir, "s.yaml"), filepath.Join(dir, "s.db")
		// Runs long enough (about 2 s each on 2 cores) that the sweep is
		// still running when the signal comes, at most 1.7 s after it
		// started (a cached optimum makes a run's start cheap).
		os.WriteFile(file, []byte("name: sig\nbase:\n  data: synthetic-auc\n  n: 5000\n  iters: 1000000\n  eval_nodes: 4\n  log_points: 4\noptimum: true\naxes:\n  seed: {range: [1, 4]}\n"), 0o644)
		p := startPTY(t, bin, "sweep", "run", file, "--results", db)
		p.waitFor(t, "4 to run", 60*time.Second)
		code, took := p.interrupt(t, syscall.SIGINT, 200*time.Millisecond+jitter(r, 1500*time.Millisecond))
		p.checkInterrupted(t, code, took, "pairgossip: interrupted")
		// The database is whole: status reads it, and the same command
		// runs the rest.
		if c, o, e := runCLI("sweep", "status", "--results", db); c != 0 {
			t.Fatalf("status after the interrupt: exit %d %s%s", c, o, e)
		}
		if c, o, e := runCLI("sweep", "run", file, "--results", db, "--quiet"); c != 0 || !strings.Contains(o, "4 runs") {
			t.Fatalf("the sweep run again: exit %d %s%s", c, o, e)
		}
		if c, o, e := runCLI("sweep", "status", "--results", db); c != 0 || !strings.Contains(o, "4 complete") {
			t.Fatalf("status at the end: exit %d %s%s", c, o, e)
		}
	})
}
