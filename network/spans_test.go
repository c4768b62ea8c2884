package network

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pairgossip/pairgossip/graph"
)

// TestSpanMatchesOnline: Span's state is Online's and holds exactly up to
// its end (the state at end differs, but for a file's adjacent intervals),
// asked in increasing order, backwards over a block, and at random; and
// without churn every node is online for ever.
func TestSpanMatchesOnline(t *testing.T) {
	check := func(name string, nt, ref *Net, k int, tt int64, exact bool) {
		t.Helper()
		bruteOnline := bruteOnline
		if ref.churn.off != nil {
			bruteOnline = func(ref *Net, k int, tt int64) bool { return ref.Online(k, tt) }
		}
		on, end := nt.Span(k, tt)
		if want := bruteOnline(ref, k, tt); on != want {
			t.Fatalf("%s node %d t %d: Span says online %v, brute %v", name, k, tt, on, want)
		}
		if end <= tt {
			t.Fatalf("%s node %d t %d: end %d", name, k, tt, end)
		}
		if end == math.MaxInt64 {
			end = tt + 200
		} else if exact && bruteOnline(ref, k, end) == on {
			t.Fatalf("%s node %d t %d: the state does not change at end %d", name, k, tt, end)
		}
		for u := tt; u < min(end, tt+200); u++ {
			if bruteOnline(ref, k, u) != on {
				t.Fatalf("%s node %d t %d: state changes at %d before end %d", name, k, tt, u, end)
			}
		}
	}
	for _, dist := range []string{DistExponential, DistGeometric, DistLognormal} {
		nt := churnNet(t, dist, 30, 10, 20, 9)
		ref := churnNet(t, dist, 30, 10, 20, 9)
		r := rand.New(rand.NewPCG(3, 4))
		for k := 0; k < 20; k++ {
			for tt := int64(1); tt < 2000; tt += 1 + r.Int64N(30) {
				check(dist, nt, ref, k, tt, true)
			}
			// A block asked about at its end, then from its start.
			for b := int64(1); b < 3000; b += 500 {
				nt.Online(k, b+499)
				for tt := b; tt < b+500; tt += 1 + r.Int64N(40) {
					check(dist, nt, ref, k, tt, true)
				}
			}
		}
		for x := 0; x < 1000; x++ {
			check(dist, nt, ref, r.IntN(20), 1+r.Int64N(4000), true)
		}
	}
	g := mustGraph(t, graph.Spec{Kind: "cycle", N: 4})
	p := writeFile(t, "s.txt", "2 10 12\n0 5 5\n2 3 4\n2 13 15\n")
	nt := mustNet(t, Model{Churn: Churn{Dist: DistFile, File: p}}, g, 1)
	ref := mustNet(t, Model{Churn: Churn{Dist: DistFile, File: p}}, g, 1)
	for _, k := range []int{0, 1, 2, 3} {
		for tt := int64(1); tt < 20; tt++ {
			check("file", nt, ref, k, tt, false)
		}
		for tt := int64(19); tt >= 1; tt-- {
			check("file", nt, ref, k, tt, false)
		}
	}
	if on, end := nt.Span(2, 9); !on || end != 10 {
		t.Fatalf("file node 2 t 9: %v %d, want online until 10", on, end)
	}
	if on, end := nt.Span(2, 11); on || end != 13 {
		t.Fatalf("file node 2 t 11: %v %d, want offline until 13", on, end)
	}
	if on, end := nt.Span(2, 16); !on || end != math.MaxInt64 {
		t.Fatalf("file node 2 t 16: %v %d, want online for ever", on, end)
	}
	perfect := mustNet(t, Model{Loss: 0.5}, g, 1)
	if on, end := perfect.Span(1, 77); !on || end != math.MaxInt64 {
		t.Fatalf("no churn: %v %d", on, end)
	}
}

// onlinePieces is Pieces by definition: [lo, hi] asked iteration by
// iteration (of a second model of the same seed).
func onlinePieces(nt *Net, k int, lo, hi int64) []int64 {
	var dst []int64
	for t := lo; t <= hi; t++ {
		if !nt.Online(k, t) {
			continue
		}
		if n := len(dst); n > 0 && dst[n-1] == t-1 {
			dst[n-1] = t
		} else {
			dst = append(dst, t, t)
		}
	}
	return dst
}

// TestPiecesAreOnline checks Pieces against Online asked iteration by
// iteration on a second model of the same seed: blocks in order, blocks
// asked about again, and random ranges (a restore), for every
// distribution, a session file and no churn.
func TestPiecesAreOnline(t *testing.T) {
	nets := map[string][2]*Net{}
	for _, dist := range []string{DistExponential, DistGeometric, DistLognormal} {
		nets[dist] = [2]*Net{churnNet(t, dist, 30, 10, 20, 9), churnNet(t, dist, 30, 10, 20, 9)}
	}
	g := mustGraph(t, graph.Spec{Kind: "cycle", N: 20})
	p := writeFile(t, "s.txt", "2 10 12\n0 5 5\n2 3 4\n2 13 15\n7 1 1\n7 2 40\n")
	nets["file"] = [2]*Net{mustNet(t, Model{Churn: Churn{Dist: DistFile, File: p}}, g, 1),
		mustNet(t, Model{Churn: Churn{Dist: DistFile, File: p}}, g, 1)}
	nets["none"] = [2]*Net{mustNet(t, Model{Loss: 0.1}, g, 1), mustNet(t, Model{Loss: 0.1}, g, 1)}
	for name, nn := range nets {
		r := rand.New(rand.NewPCG(5, 6))
		check := func(k int, lo, hi int64) {
			t.Helper()
			got := nn[0].Pieces(k, lo, hi, []int64{-1})
			want := append([]int64{-1}, onlinePieces(nn[1], k, lo, hi)...)
			if !slices.Equal(got, want) {
				t.Fatalf("%s node %d [%d, %d]: Pieces %v, Online's %v", name, k, lo, hi, got[1:], want[1:])
			}
		}
		for k := 0; k < 20; k++ {
			for lo := int64(1); lo < 3000; {
				hi := lo + r.Int64N(64)
				check(k, lo, hi)
				if r.IntN(4) == 0 {
					check(k, lo, hi)
				}
				lo = hi + 1
			}
		}
		for x := 0; x < 2000; x++ {
			lo := 1 + r.Int64N(4000)
			check(r.IntN(20), lo, lo+r.Int64N(300))
		}
	}
}
