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
	if HashIntN(1, 2, 3, 10) != HashIntN(1, 2, 3, 10) {
		t.Fatal("not a pure function")
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
