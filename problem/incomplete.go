package problem

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/pairgossip/pairgossip/internal/par"
	"github.com/pairgossip/pairgossip/internal/rng"
)

// The incomplete-U-statistic optimum of metric learning (Clémençon, Colin
// and Bellet, JMLR 2016): where the exact optimum is out of reach (n² pairs
// per evaluation), the objective is replaced by its mean over B pairs drawn
// uniformly from [n]² by the measurement's counter-based pair stream
// (sampled.go's keys), seeded by OptimumOptions.IncompleteSeed, and solved
// by the same FISTA with PSD projection as the exact optimum. The mean
// estimates R_n without bias; at the solution θ̂ the sample standard
// deviation of the B pair losses over √B is reported (Optimum.StdErr). The
// minimiser of the sampled objective is not R_n's, so Value is an estimate
// of R_n(θ*) within a few StdErr plus the optimisation gap of θ̂ on R_n,
// which the incomplete-U theory bounds by O(1/√B).

// IncompletePairs is the B of the incomplete-U optimum: 2^20 pairs (one
// evaluation a few B·d² flops, its differences B·d floats), at most n².
func IncompletePairs(n int) int64 { return min(int64(1)<<20, int64(n)*int64(n)) }

// incBlock is the number of pairs per block of the sampled sums (fixed: the
// blocks' partial sums are added in order, the same bits for any worker
// count).
const incBlock = 4096

// incU is the sampled pairs: their differences δ_k = x_i − x_j (B×d) and
// signs s_k, the per-block values and gradients, and per pair buffers.
type incU struct {
	b           int
	delta, sign []float64
	t, c        []float64 // B×d products Δθ; per-pair weights
	loss        []float64 // per pair loss at the last evaluation
	blkV        []float64
	blkG        []float64
}

func newIncU(p *Problem, pairs int64, seed uint64) *incU {
	b, d := int(pairs), p.D
	u := &incU{b: b, delta: make([]float64, b*d), sign: make([]float64, b), t: make([]float64, b*d),
		c: make([]float64, b), loss: make([]float64, b)}
	nb := (b + incBlock - 1) / incBlock
	u.blkV, u.blkG = make([]float64, nb), make([]float64, nb*d*d)
	for k := 0; k < b; k++ {
		i, j := rng.HashIntN(seed, uint64(k), keyFirst, p.N), rng.HashIntN(seed, uint64(k), keySecond, p.N)
		xi, xj := p.X.Row(i), p.X.Row(j)
		row := u.delta[k*d : k*d+d]
		for a := range row {
			row[a] = xi[a] - xj[a]
		}
		u.sign[k] = p.sign(i, j)
	}
	return u
}

// incValueGrad is smoothValueGrad on the sampled pairs: the mean over B of
// f_μ (the hinge Huber-smoothed by μ) and its gradient Δᵀdiag(c)Δ/B.
func (p *Problem) incValueGrad(theta, g []float64, mu float64, sc *optScratch) float64 {
	u, d := sc.inc, p.D
	ts := sc.e
	for k := 0; k < d; k++ {
		for l := k; l < d; l++ {
			v := (theta[k*d+l] + theta[l*d+k]) / 2
			ts[k*d+l], ts[l*d+k] = v, v
		}
	}
	nb := len(u.blkV)
	par.For(nb, sc.obj.workers, func(_, blk int) {
		if sc.stopped() {
			return
		}
		k0, k1 := blk*incBlock, min((blk+1)*incBlock, u.b)
		m := k1 - k0
		dl := blas64.General{Rows: m, Cols: d, Stride: d, Data: u.delta[k0*d : k1*d]}
		tt := blas64.General{Rows: m, Cols: d, Stride: d, Data: u.t[k0*d : k1*d]}
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, dl, blas64.General{Rows: d, Cols: d, Stride: d, Data: ts}, 0, tt)
		var v float64
		for k := k0; k < k1; k++ {
			dist := dot(u.t[k*d:k*d+d], u.delta[k*d:k*d+d])
			s := u.sign[k]
			h, dh := huber(1-s*(p.B-dist), mu)
			u.loss[k] = h
			v += h
			u.c[k] = dh * s
		}
		u.blkV[blk] = v
		if g != nil {
			for k := k0; k < k1; k++ {
				c := u.c[k]
				row := u.t[k*d : k*d+d]
				for a, x := range u.delta[k*d : k*d+d] {
					row[a] = c * x
				}
			}
			gb := blas64.General{Rows: d, Cols: d, Stride: d, Data: u.blkG[blk*d*d : (blk+1)*d*d]}
			blas64.Gemm(blas.Trans, blas.NoTrans, 1, tt, dl, 0, gb)
		}
	})
	if sc.stopped() {
		return math.NaN()
	}
	var total float64
	for _, v := range u.blkV {
		total += v
	}
	if g != nil {
		clear(g)
		for blk := 0; blk < nb; blk++ {
			for a, x := range u.blkG[blk*d*d : (blk+1)*d*d] {
				g[a] += x
			}
		}
		for a := range g {
			g[a] /= float64(u.b)
		}
	}
	return total / float64(u.b)
}

// incStdErr is the sample standard deviation of the pair losses of the last
// evaluation over √B.
func (u *incU) stdErr() float64 {
	var mean float64
	for _, v := range u.loss {
		mean += v
	}
	mean /= float64(u.b)
	var ss float64
	for _, v := range u.loss {
		ss += (v - mean) * (v - mean)
	}
	if u.b < 2 {
		return 0
	}
	return math.Sqrt(ss/float64(u.b-1)) / math.Sqrt(float64(u.b))
}

// incMethod names the incomplete-U optimum.
func incMethod(b int) string { return fmt.Sprintf("incomplete-u (%d pairs)", b) }
