package kernel

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
)

// benchSizes are the row lengths of interest: the Breast Cancer set (d = 9),
// two cache lines, a mid size, and d = 1600 (40×40 metric learning).
var benchSizes = []int{9, 16, 64, 1600}

// bench runs kernel name in every implementation at each size, on
// 64-byte-aligned rows as the engine's layout gives (warm in L1/L2: the
// largest call touches 7 rows of 12.8 kB). loop calls the kernel directly
// in a b.Loop loop. moved is the float64 traffic per element (reads +
// writes); the benchmark reports it as MB/s (SetBytes) and GB/s (10⁹ B/s).
func bench(b *testing.B, name string, moved int, loop func(b *testing.B, s [][]float64, p []float64)) {
	k := kernelByName(name)
	r := rand.New(rand.NewPCG(9, 9))
	for _, impl := range Implementations() {
		for _, d := range benchSizes {
			b.Run(fmt.Sprintf("%s/d=%d", impl, d), func(b *testing.B) {
				s := make([][]float64, len(k.arrays))
				for i := range s {
					s[i] = alignedFloats(d)
					for e := range s[i] {
						s[i][e] = r.NormFloat64() * 1e-3
					}
				}
				// Scalars that keep the state bounded over many calls.
				p := []float64{-1e-3, -0.5, 0.999, 0.001}
				bytes := int64(8 * d * moved)
				b.SetBytes(bytes)
				withImpl(b, impl, func() { loop(b, s, p) })
				b.ReportMetric(float64(bytes)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
			})
		}
	}
}

var sink float64

func BenchmarkSyncLinear(b *testing.B) {
	bench(b, "SyncLinear", 6, func(b *testing.B, s [][]float64, p []float64) {
		var m float64
		for b.Loop() {
			m += SyncLinear(s[0], s[1], s[2], s[3], p[0], p[1], p[2], p[3])
		}
		sink = m
	})
}

func BenchmarkScale(b *testing.B) {
	bench(b, "Scale", 2, func(b *testing.B, s [][]float64, p []float64) {
		for b.Loop() {
			Scale(s[0], s[1], p[1])
		}
	})
}

func BenchmarkTriad(b *testing.B) {
	bench(b, "Triad", 3, func(b *testing.B, s [][]float64, p []float64) {
		for b.Loop() {
			Triad(s[0], s[1], s[2], p[0])
		}
	})
}

// BenchmarkTriadGBps runs the STREAM probe on arrays larger than the
// last-level cache (3 × 32 MiB), with one goroutine and with GOMAXPROCS.
func BenchmarkTriadGBps(b *testing.B) {
	for _, th := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run(fmt.Sprintf("threads=%d", th), func(b *testing.B) {
			var g float64
			for b.Loop() {
				g = TriadGBps(1<<22, 5, th)
			}
			b.ReportMetric(g, "GB/s")
		})
	}
}
