package main

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// TestMPIOneRank: bench mpi started alone runs as one rank and reports its
// nodes, rounds and the touched records' bytes per round (two records of
// 2d + 2P + 3 values at most a round: d = P = 8 gives ≤ 2·35·8 B).
func TestMPIOneRank(t *testing.T) {
	if os.Getenv("OMPI_COMM_WORLD_SIZE") != "" {
		t.Skip("run under mpirun")
	}
	var out, errb bytes.Buffer
	if code := realMain([]string{"mpi", "--n", "3000", "--d", "8", "--iters", "500", "--json"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var res struct {
		Ranks   int   `json:"ranks"`
		Iters   int64 `json:"iters"`
		PerRank []struct {
			Nodes         int     `json:"nodes"`
			BytesPerRound float64 `json:"bytes_per_round"`
		} `json:"per_rank"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err, out.String())
	}
	if res.Ranks != 1 || res.Iters != 500 || len(res.PerRank) != 1 || res.PerRank[0].Nodes != 3000 {
		t.Fatalf("result %s", out.String())
	}
	if b := res.PerRank[0].BytesPerRound; b <= 0 || b > 2*35*8 {
		t.Fatalf("%g bytes a round, want (0, %d]", b, 2*35*8)
	}
	if code := realMain([]string{"mpi", "--n", "3000", "--iters", "0"}, &out, &errb); code == 0 {
		t.Fatal("--iters 0 accepted")
	}
}
