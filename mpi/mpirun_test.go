package mpi

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// MPIRun returns the command that runs prog with args as np ranks on this
// machine (mpirun, as root allowed, oversubscribed), or an empty path and
// why not when there is no mpirun.
func mpirunCmd(ctx context.Context, np int, prog string, args ...string) (*exec.Cmd, string) {
	path, err := exec.LookPath("mpirun")
	if err != nil {
		return nil, "mpirun not found (apt-get install -y openmpi-bin)"
	}
	a := []string{"--oversubscribe", "-np", strconv.Itoa(np)}
	if os.Geteuid() == 0 {
		a = append([]string{"--allow-run-as-root"}, a...)
	}
	return exec.CommandContext(ctx, path, append(append(a, prog), args...)...), ""
}

// TestMPIRanks runs TestMPIWorker as 1 to 4 ranks under mpirun.
func TestMPIRanks(t *testing.T) {
	if !Compiled {
		t.Skip("built without MPI: go test -tags mpi ./mpi runs this test")
	}
	for np := 1; np <= 4; np++ {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		cmd, why := mpirunCmd(ctx, np, os.Args[0], "-test.run", "^TestMPIWorker$", "-test.v")
		if cmd == nil {
			cancel()
			t.Skip(why)
		}
		cmd.Env = append(os.Environ(), "PAIRGOSSIP_MPI_WORKER=1")
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("%d ranks: %v\n%s", np, err, out)
		}
		if n := strings.Count(string(out), "--- PASS: TestMPIWorker"); n != np {
			t.Fatalf("%d ranks: %d workers passed\n%s", np, n, out)
		}
		t.Logf("%d ranks: ok", np)
	}
}

// TestMPIWorker is one rank of TestMPIRanks (skipped when run directly).
func TestMPIWorker(t *testing.T) {
	if os.Getenv("PAIRGOSSIP_MPI_WORKER") == "" {
		t.Skip("a rank of TestMPIRanks")
	}
	c, err := Init()
	if err != nil {
		t.Fatal(err)
	}
	if err := worker(c); err != nil {
		fmt.Fprintf(os.Stderr, "rank %d of %d: %v\n", c.Rank(), c.Size(), err)
		Abort(3)
	}
	if err := c.Finalize(); err != nil {
		t.Fatal(err)
	}
}

func worker(c Comm) error {
	r, P := c.Rank(), c.Size()
	if want := launchedSize(); want != P {
		return fmt.Errorf("size %d, the launcher says %d", P, want)
	}
	if err := c.Barrier(); err != nil {
		return err
	}
	// Allreduce: sum, max and min of values that depend on the rank.
	f := []float64{float64(r + 1), float64(-r)}
	if err := c.AllreduceFloat64(f, Sum); err != nil {
		return err
	}
	if f[0] != float64(P*(P+1)/2) || f[1] != -float64(P*(P-1)/2) {
		return fmt.Errorf("allreduce sum: %v", f)
	}
	i := []int64{int64(r), int64(r)}
	if err := c.AllreduceInt64(i[:1], Max); err != nil {
		return err
	}
	if err := c.AllreduceInt64(i[1:], Min); err != nil {
		return err
	}
	if i[0] != int64(P-1) || i[1] != 0 {
		return fmt.Errorf("allreduce max, min: %v", i)
	}
	// Bcast from the last rank.
	b := []byte{byte(r), byte(r)}
	if err := c.Bcast(b, P-1); err != nil {
		return err
	}
	if b[0] != byte(P-1) || b[1] != byte(P-1) {
		return fmt.Errorf("bcast: %v", b)
	}
	fb := []float64{float64(r)}
	if err := c.BcastFloat64(fb, 0); err != nil || fb[0] != 0 {
		return fmt.Errorf("bcast float64: %v %v", fb, err)
	}
	// Allgatherv: rank r contributes r elements (rank 0 none).
	counts := make([]int, P)
	for q := range counts {
		counts[q] = q
	}
	off := Offsets(counts)
	send := make([]float64, r)
	sendI := make([]int64, r)
	sendB := make([]byte, r)
	for k := range send {
		send[k], sendI[k], sendB[k] = float64(100*r+k), int64(100*r+k), byte(10*r+k)
	}
	recv := make([]float64, off[P])
	recvI := make([]int64, off[P])
	recvB := make([]byte, off[P])
	if err := c.AllgathervFloat64(send, counts, recv); err != nil {
		return err
	}
	if err := c.AllgathervInt64(sendI, counts, recvI); err != nil {
		return err
	}
	if err := c.AllgathervBytes(sendB, counts, recvB); err != nil {
		return err
	}
	for q := 0; q < P; q++ {
		for k := 0; k < q; k++ {
			x := off[q] + k
			if recv[x] != float64(100*q+k) || recvI[x] != int64(100*q+k) || recvB[x] != byte(10*q+k) {
				return fmt.Errorf("allgatherv: element %d of rank %d: %v %v %v", k, q, recv[x], recvI[x], recvB[x])
			}
		}
	}
	// Gatherv to the last rank: rank q's q elements, in rank order there.
	var groot []float64
	if r == P-1 {
		groot = make([]float64, off[P])
	}
	if err := c.GathervFloat64(send, counts, groot, P-1); err != nil {
		return err
	}
	if r == P-1 && !slices.Equal(groot, recv) {
		return fmt.Errorf("gatherv at rank %d: %v, want %v", r, groot, recv)
	}
	// A ring of Sendrecv, then Send/Recv pairs between even and odd ranks.
	next, prev := (r+1)%P, (r+P-1)%P
	got := make([]float64, 3)
	if err := c.SendrecvFloat64([]float64{float64(r), 1, 2}, next, got, prev, 7); err != nil {
		return err
	}
	if !slices.Equal(got, []float64{float64(prev), 1, 2}) {
		return fmt.Errorf("sendrecv ring: %v from %d", got, prev)
	}
	if P > 1 && r < P-P%2 {
		peer := r ^ 1
		if r%2 == 0 {
			if err := c.SendInt64([]int64{int64(r)}, peer, 3); err != nil {
				return err
			}
			if err := c.SendBytes([]byte("ok"), peer, 4); err != nil {
				return err
			}
			if err := c.SendFloat64([]float64{0.5}, peer, 5); err != nil {
				return err
			}
		} else {
			gi := make([]int64, 1)
			gb := make([]byte, 2)
			gf := make([]float64, 1)
			if err := c.RecvInt64(gi, peer, 3); err != nil {
				return err
			}
			if err := c.RecvBytes(gb, peer, 4); err != nil {
				return err
			}
			if err := c.RecvFloat64(gf, peer, 5); err != nil {
				return err
			}
			if gi[0] != int64(peer) || string(gb) != "ok" || gf[0] != 0.5 {
				return fmt.Errorf("send/recv: %v %q %v", gi, gb, gf)
			}
		}
	}
	// Errors are returned, not fatal: a bad peer, a short receive.
	if err := c.SendFloat64(nil, P, 0); err == nil {
		return fmt.Errorf("send to rank %d of %d accepted", P, P)
	}
	if c.Stats().Collectives == 0 && P > 1 {
		return fmt.Errorf("no collective counted")
	}
	return c.Barrier()
}
