package rng

import (
	"math"
	"testing"
)

func TestStreamDeterministic(t *testing.T) {
	a, b := New(7, 1), New(7, 1)
	c := New(7, 2)
	same := true
	for i := 0; i < 100; i++ {
		x, y, z := a.Uint64(), b.Uint64(), c.Uint64()
		if x != y {
			t.Fatalf("same seed differs at %d", i)
		}
		if x != z {
			same = false
		}
	}
	if same {
		t.Fatal("different sub-streams gave identical output")
	}
}

func TestIntNUniform(t *testing.T) {
	s := New(1, 0)
	const n, draws = 7, 70000
	var cnt [n]int
	for i := 0; i < draws; i++ {
		cnt[s.IntN(n)]++
	}
	for k, c := range cnt {
		if math.Abs(float64(c)-draws/n) > 5*math.Sqrt(draws/n) {
			t.Errorf("bucket %d: %d draws, want about %d", k, c, draws/n)
		}
	}
}

func TestNormalMoments(t *testing.T) {
	s := New(3, 0)
	const m = 200000
	var sum, sq float64
	for i := 0; i < m; i++ {
		x := s.Normal()
		sum += x
		sq += x * x
	}
	mean, v := sum/m, sq/m-(sum/m)*(sum/m)
	if math.Abs(mean) > 0.01 || math.Abs(v-1) > 0.02 {
		t.Fatalf("mean %g var %g", mean, v)
	}
}

func TestHashIntN(t *testing.T) {
	// Golden values: the unbiased baseline's draws are a function of (seed,
	// node, iteration) alone, and must stay the same across releases for
	// results to be reproducible.
	if a, b := HashIntN(1, 2, 3, 10), HashIntN(7, 11, 13, 1000003); a != 2 || b != 978733 {
		t.Fatalf("HashIntN changed: %d, %d (want 2, 978733)", a, b)
	}
	var cnt [10]int
	for i := uint64(0); i < 100000; i++ {
		cnt[HashIntN(5, i%97, i, 10)]++
	}
	for k, c := range cnt {
		if c < 9500 || c > 10500 {
			t.Errorf("bucket %d: %d", k, c)
		}
	}
}

// TestBoundedRejects: a draw in the biased zone is rejected and the next one
// used (n = 3: 2⁶⁴ mod 3 = 1, so x = 0, whose low product word is 0 < 1, is
// rejected; x = 2⁶³ maps to ⌊3·2⁶³/2⁶⁴⌋ = 1).
func TestBoundedRejects(t *testing.T) {
	draws := []uint64{0, 1 << 63}
	used := 0
	got := Bounded(func() uint64 { used++; return draws[used-1] }, 3)
	if got != 1 || used != 2 {
		t.Fatalf("Bounded = %d after %d draws, want 1 after 2", got, used)
	}
}

func TestStateRoundTrip(t *testing.T) {
	s := New(9, 9)
	s.Uint64()
	st, err := s.State()
	if err != nil {
		t.Fatal(err)
	}
	want := s.Uint64()
	r := New(0, 0)
	if err := r.SetState(st); err != nil {
		t.Fatal(err)
	}
	if got := r.Uint64(); got != want {
		t.Fatalf("restored stream gives %d, want %d", got, want)
	}
}

// TestHashKeyParts: HashKeyAB(HashKeyA(key, a), b) is HashKeyed(key, a, b)
// and Hash(seed, a, b) (a churn walk computes the first part once a node).
func TestHashKeyParts(t *testing.T) {
	x := uint64(0x12345)
	for i := 0; i < 100000; i++ {
		x = Mix(x + uint64(i))
		seed, a, b := x, Mix(x^1), Mix(x^2)>>uint(i%64)
		key := HashKey(seed)
		if got, want := HashKeyAB(HashKeyA(key, a), b), HashKeyed(key, a, b); got != want || got != Hash(seed, a, b) {
			t.Fatalf("seed %#x a %#x b %#x: parts %#x, HashKeyed %#x", seed, a, b, got, want)
		}
	}
}
