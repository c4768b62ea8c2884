package network

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pairgossip/pairgossip/graph"
	"github.com/pairgossip/pairgossip/internal/rng"
)

// TestSessionLengthMeans checks every churn distribution against its
// documented mean and its bound (>= 1).
func TestSessionLengthMeans(t *testing.T) {
	const draws = 200000
	for _, c := range []struct {
		dist        string
		mean        float64
		want, slack float64
	}{
		{DistExponential, 10, 1 / (1 - math.Exp(-1.0/10)), 0.1},
		{DistExponential, 1, 1 / (1 - math.Exp(-1.0)), 0.02},
		{DistGeometric, 10, 10, 0.1},
		{DistGeometric, 1, 1, 0},
		{DistLognormal, 20, 20.5, 0.6}, // E⌈X⌉ ∈ [20, 21)
	} {
		sum := 0.0
		for x := uint64(0); x < draws; x++ {
			l := sessionLength(c.dist, c.mean, 1, rng.Hash(5, x, 0))
			if l < 1 {
				t.Fatalf("%s: length %d < 1", c.dist, l)
			}
			sum += float64(l)
		}
		if got := sum / draws; math.Abs(got-c.want) > c.slack {
			t.Errorf("%s mean %g: sample mean %g, want %g ± %g", c.dist, c.mean, got, c.want, c.slack)
		}
	}
}

// sessionLength is one draw of sessionDraw, the definition the tests
// check the cursors against.
func sessionLength(dist string, mean, sigma float64, h uint64) int64 {
	d := newSessionDraw(dist, mean, sigma)
	return d.length(h)
}

func churnNet(t testing.TB, dist string, up, down float64, n int, seed uint64) *Net {
	return mustNet(t, Model{Churn: Churn{Dist: dist, Up: up, Down: down}}, mustGraph(t, graph.Spec{Kind: "cycle", N: n}), seed)
}

// bruteOnline recomputes node k's state at t from the definition: session 0
// starts at 1, online with probability up/(up+down); lengths alternate.
func bruteOnline(nt *Net, k int, t int64) bool {
	ch := nt.churn
	on := unit(rng.Hash(rng.Hash(nt.seed, hashChurnStart, 0), uint64(k), 0)) < ch.up/(ch.up+ch.down)
	start := int64(1)
	for idx := int64(0); ; idx++ {
		mean := ch.down
		if on {
			mean = ch.up
		}
		start += sessionLength(ch.dist, mean, ch.sigma, rng.Hash(rng.Hash(nt.seed, hashChurn, 0), uint64(k), uint64(idx)))
		if t < start {
			return on
		}
		on = !on
	}
}

func TestOnlineCursorMatchesBruteForce(t *testing.T) {
	for _, dist := range []string{DistExponential, DistGeometric, DistLognormal} {
		nt := churnNet(t, dist, 30, 10, 40, 9)
		r := rand.New(rand.NewPCG(1, 2))
		// increasing t per node, then random jumps (a restore)
		for k := 0; k < 40; k++ {
			for tt := int64(1); tt < 3000; tt += 1 + r.Int64N(20) {
				if got, want := nt.Online(k, tt), bruteOnline(nt, k, tt); got != want {
					t.Fatalf("%s node %d t %d: cursor %v, brute %v", dist, k, tt, got, want)
				}
			}
		}
		for x := 0; x < 2000; x++ {
			k, tt := r.IntN(40), 1+r.Int64N(5000)
			if got, want := nt.Online(k, tt), bruteOnline(nt, k, tt); got != want {
				t.Fatalf("%s random access node %d t %d: cursor %v, brute %v", dist, k, tt, got, want)
			}
		}
		nt.ResumeAt(100)
		if nt.Online(3, 100) != bruteOnline(nt, 3, 100) {
			t.Fatal("after ResumeAt")
		}
	}
}

// TestChurnStationary: the fraction online is up/(up+down) at the start
// (stationary start) and later; a different seed gives other sessions.
func TestChurnStationary(t *testing.T) {
	const n = 20000
	nt := churnNet(t, DistGeometric, 30, 10, n, 4)
	for _, tt := range []int64{1, 500, 5000} {
		if f := float64(nt.OnlineCount(tt)) / n; math.Abs(f-0.75) > 0.015 {
			t.Errorf("t=%d: fraction online %g, want 0.75", tt, f)
		}
	}
	other := churnNet(t, DistGeometric, 30, 10, n, 5)
	same := 0
	for k := 0; k < n; k++ {
		if nt.Online(k, 777) == other.Online(k, 777) {
			same++
		}
	}
	if same == n {
		t.Fatal("seeds 4 and 5 give the same churn")
	}
	// a node's time online over a long horizon
	on := 0
	for tt := int64(1); tt <= 400000; tt++ {
		if nt.Online(17, tt) {
			on++
		}
	}
	if f := float64(on) / 400000; math.Abs(f-0.75) > 0.03 {
		t.Errorf("node 17 online a fraction %g of the time, want 0.75", f)
	}
}

func TestChurnFile(t *testing.T) {
	g := mustGraph(t, graph.Spec{Kind: "cycle", N: 4})
	p := writeFile(t, "s.txt", "# node start end\n2 10 12\n0 5 5\n2 3 4 # two intervals\n")
	nt := mustNet(t, Model{Churn: Churn{Dist: DistFile, File: p}}, g, 1)
	want := map[[2]int64]bool{{0, 4}: true, {0, 5}: false, {0, 6}: true, {2, 2}: true, {2, 3}: false, {2, 4}: false,
		{2, 5}: true, {2, 9}: true, {2, 10}: false, {2, 12}: false, {2, 13}: true, {1, 7}: true}
	for _, order := range [][2]int64{{0, 4}, {0, 5}, {0, 6}, {2, 2}, {2, 3}, {2, 4}, {2, 5}, {2, 9}, {2, 10}, {2, 12}, {2, 13}, {2, 3}, {0, 5}, {1, 7}} {
		if got := nt.Online(int(order[0]), order[1]); got != want[order] {
			t.Errorf("node %d t %d: online %v", order[0], order[1], got)
		}
	}
	if pi := nt.churn.pi(2, 0); math.Abs(pi-(1-5.0/12)) > 1e-15 {
		t.Errorf("pi(2) = %g", pi)
	}
	// Over a run's horizon: 5 of 120 iterations offline; 3 of 11 (the
	// interval 10..12 cut at 11); an empty file: online throughout.
	if pi := nt.churn.pi(2, 120); math.Abs(pi-(1-5.0/120)) > 1e-15 {
		t.Errorf("pi(2) over 120 = %g", pi)
	}
	if pi := nt.churn.pi(2, 11); math.Abs(pi-(1-4.0/11)) > 1e-15 {
		t.Errorf("pi(2) over 11 = %g", pi)
	}
	empty := mustNet(t, Model{Churn: Churn{Dist: DistFile, File: writeFile(t, "e.txt", "# nobody goes offline\n")}}, g, 1)
	if pi := empty.churn.pi(0, 0); pi != 1 {
		t.Errorf("an empty file: pi = %g", pi)
	}
	for content, msg := range map[string]string{
		"0 1\n":           "s.txt:1: expected `node start end`",
		"0 1 x\n":         "s.txt:1: expected three integers",
		"# c\n9 1 2\n":    "s.txt:2: node 9 outside [0, 4)",
		"0 0 2\n":         "s.txt:1: interval 0..2 needs 1 <= start <= end",
		"0 5 2\n":         "interval 5..2",
		"1 3 9\n1 9 10\n": "s.txt:2: node 1's interval 9..10 overlaps the one at line 1",
	} {
		_, err := New(Model{Churn: Churn{Dist: DistFile, File: writeFile(t, "s.txt", content)}}, g, 1)
		if err == nil || !strings.Contains(err.Error(), msg) || !strings.HasPrefix(err.Error(), "--churn: ") {
			t.Errorf("%q: %v, want %q", content, err, msg)
		}
	}
}

func TestLoss(t *testing.T) {
	g := mustGraph(t, graph.Spec{Kind: "cycle", N: 10})
	const iters = 200000
	for _, oneway := range []bool{false, true} {
		nt := mustNet(t, Model{Loss: 0.3, LossOneWay: oneway}, g, 7)
		var toI, toJ, both, either int
		for tt := int64(1); tt <= iters; tt++ {
			a, b := nt.Delivered(tt, 2, 3)
			if a2, b2 := nt.Delivered(tt, 5, 6); a2 != a || b2 != b {
				t.Fatal("loss depends on the edge")
			}
			if a {
				toI++
			}
			if b {
				toJ++
			}
			if a && b {
				both++
			}
			if a || b {
				either++
			}
		}
		for _, c := range []int{toI, toJ} {
			if math.Abs(float64(c)/iters-0.7) > 0.005 {
				t.Errorf("oneway %v: a direction delivered %g, want 0.7", oneway, float64(c)/iters)
			}
		}
		wantBoth := 0.7
		if oneway {
			wantBoth = 0.49
		}
		if math.Abs(float64(both)/iters-wantBoth) > 0.005 {
			t.Errorf("oneway %v: both delivered %g, want %g", oneway, float64(both)/iters, wantBoth)
		}
		if !oneway && both != either {
			t.Error("two-way loss separated the directions")
		}
	}
	for _, q := range []float64{0, 1} {
		nt := mustNet(t, Model{Loss: q}, g, 7)
		for tt := int64(1); tt < 10000; tt++ {
			a, b := nt.Delivered(tt, 0, 1)
			if a != (q == 0) || b != (q == 0) {
				t.Fatalf("loss %g delivered %v %v at %d", q, a, b, tt)
			}
		}
	}
	if !Swap(true, true) || Swap(true, false) || Swap(false, true) {
		t.Fatal("Swap is not a handshake")
	}
}

// TestDrawsIndependentOfOrder: the same seed gives the same draws in any
// call order and from a fresh Net; loss and delay draws are independent.
func TestDrawsIndependentOfOrder(t *testing.T) {
	g := mustGraph(t, graph.Spec{Kind: "watts-strogatz", N: 50, K: 4, P: 0.2, Seed: 1})
	m := Model{Loss: 0.5, LossOneWay: true, Delay: Delay{Dist: DelayUniform, A: 0, B: 1},
		Churn: Churn{Dist: DistExponential, Up: 5, Down: 5}, Activation: Activation{Kind: ActClocks}}
	a, b := mustNet(t, m, g, 3), mustNet(t, m, g, 3)
	type rec struct {
		i, j, tau      int
		ok, ti, tj, on bool
	}
	draw := func(nt *Net, tt int64) rec {
		i, j, ok := nt.Edge(tt, nil, nil)
		ti, tj := nt.Delivered(tt, i, j)
		return rec{i, j, nt.Delay(tt, DirToI), ok, ti, tj, nt.Online(int(tt%50), tt)}
	}
	fwd := map[int64]rec{}
	for tt := int64(1); tt <= 3000; tt++ {
		fwd[tt] = draw(a, tt)
	}
	agree := 0
	for tt := int64(3000); tt >= 1; tt-- {
		r := draw(b, tt)
		if r != fwd[tt] {
			t.Fatalf("t=%d: forward %+v, backward %+v", tt, fwd[tt], r)
		}
		if r.tj == (r.tau == 1) {
			agree++
		}
	}
	if agree < 1350 || agree > 1650 {
		t.Errorf("loss and delay draws agree %d/3000 times: not independent", agree)
	}
}

func TestDelays(t *testing.T) {
	g := mustGraph(t, graph.Spec{Kind: "cycle", N: 5})
	const draws = 200000
	for _, c := range []struct {
		d        Delay
		lo, hi   int
		mean, sl float64
	}{
		{Delay{}, 0, 0, 0, 0},
		{Delay{Dist: DelayConstant, C: 4}, 4, 4, 4, 0},
		{Delay{Dist: DelayUniform, A: 2, B: 6}, 2, 6, 4, 0.02},
		{Delay{Dist: DelayGeometric, Mean: 3, Max: 1000}, 0, 1000, 3, 0.05},
		{Delay{Dist: DelayGeometric, Mean: 3, Max: 2}, 0, 2, -1, 0},
	} {
		nt := mustNet(t, Model{Delay: c.d}, g, 11)
		if nt.MaxDelay() != c.hi {
			t.Errorf("%v: MaxDelay %d, want %d", c.d, nt.MaxDelay(), c.hi)
		}
		sum, seen := 0.0, map[int]bool{}
		for tt := int64(1); tt <= draws; tt++ {
			for dir := 0; dir < 2; dir++ {
				x := nt.Delay(tt, dir)
				if x < c.lo || x > c.hi {
					t.Fatalf("%v: delay %d outside [%d, %d]", c.d, x, c.lo, c.hi)
				}
				sum += float64(x)
				seen[x] = true
			}
		}
		if c.mean >= 0 && math.Abs(sum/(2*draws)-c.mean) > c.sl {
			t.Errorf("%v: mean %g, want %g", c.d, sum/(2*draws), c.mean)
		}
		if c.d.Dist == DelayUniform && len(seen) != 5 || c.d.Dist == DelayGeometric && !seen[c.hi] && c.hi == 2 {
			t.Errorf("%v: values seen %v", c.d, seen)
		}
	}
}

// TestOnlineConcurrentDisjointNodes: workers asking about disjoint nodes
// get the serial answers (run under -race to check the sharing).
func TestOnlineConcurrentDisjointNodes(t *testing.T) {
	const n, iters = 64, 2000
	serial := churnNet(t, DistLognormal, 20, 5, n, 3)
	par := churnNet(t, DistLognormal, 20, 5, n, 3)
	want := make([]bool, n*iters)
	for tt := 1; tt <= iters; tt++ {
		for k := 0; k < n; k++ {
			want[(tt-1)*n+k] = serial.Online(k, int64(tt))
		}
	}
	got := make([]bool, n*iters)
	done := make(chan struct{})
	for w := 0; w < 4; w++ {
		go func(w int) {
			for tt := 1; tt <= iters; tt++ {
				for k := w; k < n; k += 4 {
					got[(tt-1)*n+k] = par.Online(k, int64(tt))
				}
			}
			done <- struct{}{}
		}(w)
	}
	for w := 0; w < 4; w++ {
		<-done
	}
	if !slices.Equal(got, want) {
		t.Fatal("concurrent Online differs from serial")
	}
}

// TestLnUnitIsLog checks lnUnit against math.Log (the same algorithm) on
// the values a session draw gives it, 1 − u for u = k·2⁻⁵³, and on the
// edges of its reduction.
func TestLnUnitIsLog(t *testing.T) {
	vals := []float64{1, 0.5, 0x1p-53, 0x1p-52, math.Sqrt2 / 2, math.Nextafter(math.Sqrt2/2, 0),
		math.Nextafter(math.Sqrt2/2, 1), math.Nextafter(1, 0), 0.75, 0.25, 1 - 0x1p-53}
	for x := uint64(0); x < 1_000_000; x++ {
		vals = append(vals, 1-unit(rng.Hash(11, x, 0)))
	}
	if !mathLogRounded() {
		t.Skip("math.Log is pure Go here and this build fuses multiply-adds: TestNoFMAMath checks lnUnit")
	}
	for _, v := range vals {
		if got, want := lnUnit(v), math.Log(v); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("lnUnit(%v) = %v, math.Log %v", v, got, want)
		}
	}
}

// TestSessionLengthsAreLog1p checks that the draws, which take lnUnit(1 −
// u) (1 − u is exact), give the session lengths of log1p(−u), the form
// they were first written in: churn runs from before keep their bits.
func TestSessionLengthsAreLog1p(t *testing.T) {
	if fusing() {
		t.Skip("math.Log1p is pure Go and this build fuses multiply-adds: TestNoFMAMath checks the lengths")
	}
	for _, mean := range []float64{2, 10, 500, 4500, 1e6} {
		geo, exp := newSessionDraw(DistGeometric, mean, 1), newSessionDraw(DistExponential, mean, 1)
		for x := uint64(0); x < 200_000; x++ {
			h := rng.Hash(3, x, uint64(mean))
			u := unit(h)
			if got, want := geo.length(h), int64(max(1, math.Ceil(math.Log1p(-u)/math.Log1p(-1/mean)))); got != want {
				t.Fatalf("geometric mean %g, u %v: length %d, log1p form %d", mean, u, got, want)
			}
			if got, want := exp.length(h), int64(max(1, math.Ceil(-mean*math.Log1p(-u)))); got != want {
				t.Fatalf("exponential mean %g, u %v: length %d, log1p form %d", mean, u, got, want)
			}
		}
	}
}

// BenchmarkSessionDraw times a geometric session draw (mean 4500) with
// each form of its log, the draws independent (a loop over nodes), and the
// whole length, geometric and lognormal (σ = 1), in the exact form and as
// drawn (the quick functions' guess):
// bench/RESULTS.md, "Session draws" and "Session draws without a division".
func BenchmarkSessionDraw(b *testing.B) {
	geo := math.Log1p(-1.0 / 4500)
	for _, c := range []struct {
		name string
		ln   func(u float64) float64
	}{
		{"log1p", func(u float64) float64 { return math.Log1p(-u) }},
		{"math.Log", func(u float64) float64 { return math.Log(1 - u) }},
		{"lnUnit", func(u float64) float64 { return lnUnit(1 - u) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			var s int64
			x := uint64(0)
			for b.Loop() {
				x++
				s += int64(math.Ceil(c.ln(unit(rng.Hash(7, x, 0))) / geo))
			}
			sinkInt = s
		})
	}
	// The whole length as a churn walk draws it: lnUnit's form, and
	// lnQuick's guess with lnUnit where the guess is near an integer.
	d, key := newSessionDraw(DistGeometric, 4500, 1), rng.HashKey(7) // the walk's keyed hash
	ln := newSessionDraw(DistLognormal, 4500, 1)
	for _, c := range []struct {
		name string
		f    func(h uint64) int64
	}{{"length/lnUnit", func(h uint64) int64 { return exactLength(&d, h) }}, {"length/lnQuick", d.length},
		{"lognormal/exact", func(h uint64) int64 { return exactLength(&ln, h) }}, {"lognormal/quick", ln.length}} {
		b.Run(c.name, func(b *testing.B) {
			var s int64
			x := uint64(0)
			for b.Loop() {
				x++
				s += c.f(rng.HashKeyed(key, x, 0))
			}
			sinkInt = s
		})
	}
}

var sinkInt int64

// TestOnlineLongSessions: sessions longer than 2³² iterations, which a
// cursor does not hold ahead but draws again when it reaches them, against
// the definition, forward, backward and at random, and the ends of Pieces'
// pieces.
func TestOnlineLongSessions(t *testing.T) {
	for _, dist := range []string{DistExponential, DistGeometric, DistLognormal} {
		for _, ud := range [][2]float64{{6e9, 3}, {3, 6e9}, {8e9, 8e9}} {
			nt := churnNet(t, dist, ud[0], ud[1], 8, 4)
			ref := churnNet(t, dist, ud[0], ud[1], 8, 4)
			r := rand.New(rand.NewPCG(7, 8))
			long := 0
			for k := 0; k < 8; k++ {
				for tt := int64(1); tt < 1e11; tt += 1 + r.Int64N(3e9) {
					if got, want := nt.Online(k, tt), bruteOnline(nt, k, tt); got != want {
						t.Fatalf("%s %v node %d t %d: cursor %v, brute %v", dist, ud, k, tt, got, want)
					}
					if nt.churn.cur[k].next-nt.churn.cur[k].start >= 1<<32 {
						long++
					}
				}
			}
			for x := 0; x < 300; x++ {
				k, lo := r.IntN(8), 1+r.Int64N(1e11)
				hi := lo + r.Int64N(2e10)
				pcs := nt.Pieces(k, lo, hi, nil)
				// Each piece is online at its ends and offline just
				// outside them; pieces are in order and apart.
				for x := 0; x < len(pcs); x += 2 {
					a, b := pcs[x], pcs[x+1]
					bad := a > b || a < lo || b > hi || !bruteOnline(ref, k, a) || !bruteOnline(ref, k, b) ||
						(a > lo && bruteOnline(ref, k, a-1)) || (b < hi && bruteOnline(ref, k, b+1)) ||
						(x > 0 && a <= pcs[x-1]+1)
					if bad {
						t.Fatalf("%s %v node %d [%d, %d]: piece [%d, %d] of %v", dist, ud, k, lo, hi, a, b, pcs)
					}
				}
				if len(pcs) == 0 && bruteOnline(ref, k, lo) {
					t.Fatalf("%s %v node %d [%d, %d]: no piece, online at %d", dist, ud, k, lo, hi, lo)
				}
				if got, want := nt.Online(k, lo), bruteOnline(nt, k, lo); got != want {
					t.Fatalf("%s %v node %d t %d (random): cursor %v, brute %v", dist, ud, k, lo, got, want)
				}
			}
			if long == 0 {
				t.Fatalf("%s %v: no session of 2³² iterations or more met", dist, ud)
			}
		}
	}
}

// TestLossDrawIsUnitForm: Delivered's integer test (Net.lossMin against
// the hash's 53 bits under the key mixed once) decides every message as
// the documented unit(rng.Hash(dLoss, t, dir)) ≥ q, two-way and one-way,
// at q = 0, 1, q just either side of a drawn value and at the drawn value
// itself (u = q is delivered), on graphs and on NewNodes's node-only form;
// DeliveredBit, the branch-free form of the two-way draw, answers the same.
func TestLossDrawIsUnitForm(t *testing.T) {
	g := mustGraph(t, graph.Spec{Kind: "cycle", N: 8})
	const seed = 11
	dLoss := rng.Hash(seed, hashLoss, 0)
	at := unit(rng.Hash(dLoss, 77, 2)) // a value the two-way draw of t = 77 takes
	for _, q := range []float64{0, 1, 0x1p-53, 0.3, 0.5, at, math.Nextafter(at, 0), math.Nextafter(at, 1), 1 - 0x1p-53} {
		for _, oneway := range []bool{false, true} {
			m := Model{Loss: q, LossOneWay: oneway}
			nodes, err := NewNodes(m, 8, seed)
			if err != nil {
				t.Fatal(err)
			}
			for _, nt := range []*Net{mustNet(t, m, g, seed), nodes} {
				for tt := int64(1); tt <= 20000; tt++ {
					wantI := unit(rng.Hash(dLoss, uint64(tt), 2)) >= q
					wantJ := wantI
					if oneway {
						wantJ = unit(rng.Hash(dLoss, uint64(tt), DirToJ)) >= q
						wantI = unit(rng.Hash(dLoss, uint64(tt), DirToI)) >= q
					}
					if toI, toJ := nt.Delivered(tt, 0, 1); toI != wantI || toJ != wantJ {
						t.Fatalf("q %v one-way %v t %d: delivered (%v, %v), unit form (%v, %v)", q, oneway, tt, toI, toJ, wantI, wantJ)
					}
					if nt.LossOnly() == oneway {
						t.Fatalf("q %v one-way %v: LossOnly %v", q, oneway, nt.LossOnly())
					}
					if b := nt.DeliveredBit(tt); !oneway && (b == 1) != wantI || b > 1 {
						t.Fatalf("q %v t %d: DeliveredBit %d, unit form %v", q, tt, b, wantI)
					}
				}
			}
		}
	}
	nt := mustNet(t, Model{Loss: at}, g, seed)
	if toI, _ := nt.Delivered(77, 0, 1); !toI {
		t.Fatalf("u = q at t = 77 not delivered")
	}
}

// TestSessionExpected: a distribution's exact mean session length
// (sessionDraw.expected, π's) against the mean of 4·10⁶ draws, within 5
// standard errors, for small means (where rounding up to whole iterations
// moves it most) and large; geometric is its mean exactly, and the
// lognormal's Euler–Maclaurin tail agrees with a plain sum where the sum
// can be taken whole.
func TestSessionExpected(t *testing.T) {
	for _, c := range []struct {
		dist        string
		mean, sigma float64
	}{
		{DistExponential, 1, 1}, {DistExponential, 3, 1}, {DistExponential, 250, 1},
		{DistGeometric, 1, 1}, {DistGeometric, 7, 1},
		{DistLognormal, 1, 1}, {DistLognormal, 2, 0.5}, {DistLognormal, 10, 2}, {DistLognormal, 300, 1},
	} {
		d := newSessionDraw(c.dist, c.mean, c.sigma)
		const N = 4_000_000
		var s, s2 float64
		for x := uint64(0); x < N; x++ {
			l := float64(d.length(rng.Hash(21, x, uint64(c.mean*1000))))
			s += l
			s2 += l * l
		}
		m := s / N
		se := math.Sqrt((s2/N - m*m) / N)
		if e := d.expected(); math.Abs(e-m) > 5*se+1e-12 {
			t.Errorf("%s mean %g sigma %g: expected %.6f, draws %.6f ± %.6f", c.dist, c.mean, c.sigma, e, m, se)
		}
	}
	if g := newSessionDraw(DistGeometric, 4500, 1); g.expected() != 4500 {
		e := g.expected()
		t.Errorf("geometric 4500: %v", e)
	}
	// The tail's closed form against a sum taken to where the terms vanish.
	d := newSessionDraw(DistLognormal, 3000, 0.8)
	sum := 1.0
	for k := 1; k < 1<<24; k++ {
		sum += 0.5 * math.Erfc((math.Log(float64(k))-d.mu)/(d.sigma*math.Sqrt2))
	}
	if e := d.expected(); math.Abs(e-sum) > 1e-9*sum {
		t.Errorf("lognormal 3000: expected %.12g, plain sum %.12g", e, sum)
	}
}

// TestLossOnly: DeliveredBit stands for Delivered only where the
// deliveries are the two-way loss alone — not with link failures (a down
// link delivers nothing whatever the loss draw) nor with one-way loss —
// and there it answers as Delivered does, link failures or not elsewhere.
func TestLossOnly(t *testing.T) {
	g := mustGraph(t, graph.Spec{Kind: "cycle", N: 8})
	phase := []Phase{{Graph: g, Length: 7}}
	for _, c := range []struct {
		m    Model
		want bool
	}{{Model{}, true}, {Model{Loss: 0.3}, true}, {Model{Loss: 0.3, Schedule: phase, LinkUp: 1}, true},
		{Model{Loss: 0.3, Schedule: phase, LinkUp: 0.5}, false}, {Model{Schedule: phase, LinkUp: 0.5}, false},
		{Model{Loss: 0.3, LossOneWay: true}, false}} {
		nt := mustNet(t, c.m, g, 3)
		if nt.LossOnly() != c.want {
			t.Fatalf("%+v: LossOnly %v, want %v", c.m, nt.LossOnly(), c.want)
		}
		if !c.want {
			continue
		}
		for tt := int64(1); tt <= 5000; tt++ {
			toI, toJ := nt.Delivered(tt, 0, 1)
			if b := nt.DeliveredBit(tt); toI != toJ || (b == 1) != toI {
				t.Fatalf("%+v t %d: Delivered (%v, %v), DeliveredBit %d", c.m, tt, toI, toJ, b)
			}
		}
	}
}

// TestLognormalMeanSum: the lognormal session mean's 2¹⁶-term sum is
// compensated: it matches the same terms summed exactly (big.Float) to a
// few ulps, where the plain sum was off by about 1e-13 of it.
func TestLognormalMeanSum(t *testing.T) {
	for _, c := range []struct{ mean, sigma float64 }{{10, 1}, {500, 2}, {50, 3}} {
		d := newSessionDraw(DistLognormal, c.mean, c.sigma)
		q := func(y float64) float64 { return 0.5 * math.Erfc((math.Log(y)-d.mu)/(d.sigma*math.Sqrt2)) }
		exact := new(big.Float).SetPrec(256).SetFloat64(1)
		for k := 1; k < 1<<16; k++ {
			exact.Add(exact, new(big.Float).SetFloat64(q(float64(k))))
		}
		got := d.expected()
		// expected() adds the tail beyond 2¹⁶ terms; take it off again.
		kf := float64(1 << 16)
		z := (math.Log(kf) - d.mu) / d.sigma
		tail := math.Exp(d.mu+d.sigma*d.sigma/2)*0.5*math.Erfc((z-d.sigma)/math.Sqrt2) - kf*q(kf)
		fp := -math.Exp(-z*z/2) / (math.Sqrt(2*math.Pi) * d.sigma * kf)
		ref, _ := exact.Float64()
		ref += tail + q(kf)/2 - fp/12
		if math.Abs(got-ref) > 4*ulp(ref) {
			t.Errorf("lognormal mean %g, σ %g: %.17g, exact sum %.17g (%.2g relative)", c.mean, c.sigma, got, ref, math.Abs(got-ref)/ref)
		}
	}
}

func ulp(x float64) float64 { return math.Nextafter(x, math.Inf(1)) - x }
