package problem

import (
	"math"
	"slices"
)

// pwkPair is pwkEigenvalues on two independent blocks at once, with the
// same results bit for bit: each block's iteration runs as its own state
// machine (pwkRun), and whenever both have a sweep pending the two sweeps
// run in one loop (pwkSweep2), a step of each per iteration. A sweep step
// is a chain of dependent operations with a division on it, so one sweep
// leaves the core mostly idle; two independent chains side by side take
// little longer than one. It is for a pair of projections whose
// eigenvalues are needed together (Workspace.ProjectPSDSelectPair).
func pwkPair(d1, e1, d2, e2 []float64) (ok1, ok2 bool) {
	var a, b pwkRun
	a.init(d1, e1)
	b.init(d2, e2)
	sa, sb := a.next(), b.next()
	for sa && sb {
		pwkSweep2(&a, &b)
		a.endSweep()
		b.endSweep()
		sa, sb = a.next(), b.next()
	}
	for ; sa; sa = a.next() {
		a.sweep()
		a.endSweep()
	}
	for ; sb; sb = b.next() {
		b.sweep()
		b.endSweep()
	}
	return a.result(), b.result()
}

// pwkRun is pwkEigenvalues' iteration, resumable: next runs it up to the
// next QL or QR sweep (its arguments in dd, ee, sg, gamma, p) or to its
// end; the caller runs the sweep (sweep, or pwkSweep2 for two runs) and
// endSweep stores its result.
type pwkRun struct {
	d, e []float64
	n    int

	phase        int // pwkBlock, pwkQL, pwkQR or pwkDone
	l1, l, lend  int
	lsv, lendsv  int
	jtot, nmaxit int
	sigma        float64
	dd, ee       []float64 // the pending sweep's diagonal and squared off-diagonal
	sg, gamma, p float64   // its shift, γ and p on entry; s, γ and p on exit
	s            float64
	ql           bool // the pending sweep is QL
}

const (
	pwkBlock = iota // between blocks
	pwkQL
	pwkQR
	pwkDone
)

func (r *pwkRun) init(d, e []float64) {
	*r = pwkRun{d: d, n: len(d), phase: pwkBlock, nmaxit: 30 * len(d)}
	if r.n <= 1 {
		r.phase = pwkDone
		return
	}
	r.e = e[:r.n-1]
}

// next advances to the next sweep (true) or to the end (false), exactly as
// pwkEigenvalues' loops do.
func (r *pwkRun) next() bool {
	d, e := r.d, r.e
	const eps2 = eps * eps
	for {
		switch r.phase {
		case pwkDone:
			return false
		case pwkBlock:
			if r.l1 >= r.n {
				r.phase = pwkDone
				return false
			}
			l1 := r.l1
			if l1 > 0 {
				e[l1-1] = 0
			}
			m := l1
			for ; m < r.n-1; m++ {
				if math.Abs(e[m]) <= math.Sqrt(math.Abs(d[m]))*math.Sqrt(math.Abs(d[m+1]))*eps {
					e[m] = 0
					break
				}
			}
			l, lend := l1, m
			r.lsv, r.lendsv = l, lend
			r.l1 = m + 1
			if lend == l {
				continue
			}
			var anorm float64
			for i := l; i <= lend; i++ {
				anorm = fmax(anorm, math.Abs(d[i]))
			}
			for i := l; i < lend; i++ {
				anorm = fmax(anorm, math.Abs(e[i]))
			}
			if anorm == 0 {
				continue
			}
			r.sigma = 1
			if anorm > 0x1p100 || anorm < 0x1p-100 {
				_, ex := math.Frexp(anorm)
				r.sigma = math.Ldexp(1, -ex)
				for i := l; i <= lend; i++ {
					d[i] *= r.sigma
				}
				for i := l; i < lend; i++ {
					e[i] *= r.sigma
				}
			}
			for i := l; i < lend; i++ {
				e[i] *= e[i]
			}
			if math.Abs(d[lend]) < math.Abs(d[l]) {
				l, lend = lend, l
			}
			r.l, r.lend = l, lend
			r.phase = pwkQR
			if lend >= l {
				r.phase = pwkQL
			}
		case pwkQL:
			l, lend := r.l, r.lend
			if l > lend {
				r.endBlock()
				continue
			}
			m := l
			for ; m < lend; m++ {
				if math.Abs(e[m]) <= eps2*math.Abs(d[m]*d[m+1]) {
					break
				}
			}
			if m < lend {
				e[m] = 0
			}
			p := d[l]
			if m == l {
				r.l++
				continue
			}
			if m == l+1 {
				d[l], d[l+1] = dlae2(d[l], math.Sqrt(e[l]), d[l+1])
				e[l] = 0
				r.l += 2
				continue
			}
			if r.jtot == r.nmaxit {
				r.endBlock()
				continue
			}
			r.jtot++
			rte := math.Sqrt(e[l])
			sg := (d[l+1] - p) / (2 * rte)
			rr := hypot1(sg)
			sg = p - rte/(sg+math.Copysign(rr, sg))
			r.sg, r.gamma = sg, d[m]-sg
			r.p = r.gamma * r.gamma
			r.dd, r.ee, r.ql = d[l:m+1], e[l:m], true
			return true
		case pwkQR:
			l, lend := r.l, r.lend
			if l < lend {
				r.endBlock()
				continue
			}
			m := l
			for ; m > lend; m-- {
				if math.Abs(e[m-1]) <= eps2*math.Abs(d[m]*d[m-1]) {
					break
				}
			}
			if m > lend {
				e[m-1] = 0
			}
			p := d[l]
			if m == l {
				r.l--
				continue
			}
			if m == l-1 {
				d[l], d[l-1] = dlae2(d[l], math.Sqrt(e[l-1]), d[l-1])
				e[l-1] = 0
				r.l -= 2
				continue
			}
			if r.jtot == r.nmaxit {
				r.endBlock()
				continue
			}
			r.jtot++
			rte := math.Sqrt(e[l-1])
			sg := (d[l-1] - p) / (2 * rte)
			rr := hypot1(sg)
			sg = p - rte/(sg+math.Copysign(rr, sg))
			r.sg, r.gamma = sg, d[m]-sg
			r.p = r.gamma * r.gamma
			r.dd, r.ee, r.ql = d[m:l+1], e[m:l], false
			return true
		}
	}
}

// endBlock undoes the block's scaling and moves to the next block, or ends
// the iteration when its limit is reached.
func (r *pwkRun) endBlock() {
	if r.sigma != 1 {
		for i := r.lsv; i <= r.lendsv; i++ {
			r.d[i] /= r.sigma
		}
	}
	r.phase = pwkBlock
	if r.jtot >= r.nmaxit {
		r.phase = pwkDone
	}
}

// sweep runs the pending sweep alone.
func (r *pwkRun) sweep() {
	if r.ql {
		r.s, r.p, r.gamma = pwkSweepQL(r.dd, r.ee, r.sg, r.gamma, r.p)
	} else {
		r.s, r.p, r.gamma = pwkSweepQR(r.dd, r.ee, r.sg, r.gamma, r.p)
	}
}

// endSweep stores the sweep's last values as pwkEigenvalues does after its
// inner loop.
func (r *pwkRun) endSweep() {
	if r.ql {
		r.e[r.l] = r.s * r.p
	} else {
		r.e[r.l-1] = r.s * r.p
	}
	r.d[r.l] = r.sg + r.gamma
}

// result is pwkEigenvalues' ending: false if an off-diagonal entry is left,
// else the eigenvalues sorted.
func (r *pwkRun) result() bool {
	for _, v := range r.e {
		if v != 0 {
			return false
		}
	}
	slices.Sort(r.d)
	return true
}

// pwkSweepQL is pwkEigenvalues' QL inner loop: dd has one more entry than
// ee; it returns the last s, p and γ. It and pwkSweepQR are Dsterf's two
// directions written out, as Dsterf writes them: one loop for both
// (pwkLane's index arithmetic) makes a lone sweep about 8% slower
// (BenchmarkPWK), and most sweeps run alone.
func pwkSweepQL(dd, ee []float64, sg, gamma, p float64) (s, pOut, gOut float64) {
	cp, cr := 1.0, 1.0
	dd = dd[:len(ee)+1]
	for i := len(ee) - 1; i >= 0; i-- {
		bb := ee[i]
		r := p + bb
		if i != len(ee)-1 {
			ee[i+1] = s * r
		}
		ocp, ocr := cp, cr
		cp, cr = p, r
		s = bb / r
		oldgam := gamma
		alpha := dd[i]
		nn := p*(alpha-sg) - bb*oldgam
		rp := r * p
		gamma = nn / r
		dd[i+1] = oldgam + (alpha - gamma)
		switch {
		case rp > 0x1p-900:
			p = nn * nn / rp
		case p != 0:
			p = (gamma * gamma) / (p / r)
		default:
			p = ocp / ocr * bb
		}
	}
	return s, p, gamma
}

// pwkSweepQR is pwkEigenvalues' QR inner loop.
func pwkSweepQR(dd, ee []float64, sg, gamma, p float64) (s, pOut, gOut float64) {
	cp, cr := 1.0, 1.0
	dd = dd[:len(ee)+1]
	for i := range ee {
		bb := ee[i]
		r := p + bb
		if i != 0 {
			ee[i-1] = s * r
		}
		ocp, ocr := cp, cr
		cp, cr = p, r
		s = bb / r
		oldgam := gamma
		alpha := dd[i+1]
		nn := p*(alpha-sg) - bb*oldgam
		rp := r * p
		gamma = nn / r
		dd[i] = oldgam + alpha - gamma
		switch {
		case rp > 0x1p-900:
			p = nn * nn / rp
		case p != 0:
			p = (gamma * gamma) / (p / r)
		default:
			p = ocp / ocr * bb
		}
	}
	return s, p, gamma
}

// pwkLane is a sweep in progress: its arrays, step k of len(ee), the
// direction (QL: from the end of ee down; QR: from its start up) and the
// loop's carried values.
type pwkLane struct {
	dd, ee                  []float64
	ql                      bool
	sg, gamma, p, s, cp, cr float64
}

func newLane(r *pwkRun) pwkLane {
	return pwkLane{dd: r.dd[:len(r.ee)+1], ee: r.ee, ql: r.ql, sg: r.sg, gamma: r.gamma, p: r.p, cp: 1, cr: 1}
}

// step runs step k of the sweep: index i = len(ee)−1−k (QL) or k (QR),
// the arithmetic of pwkSweepQL or pwkSweepQR at that index.
func (z *pwkLane) step(k int) {
	var i, eo, ai, oi int
	if z.ql {
		i = len(z.ee) - 1 - k
		eo, ai, oi = i+1, i, i+1
	} else {
		i = k
		eo, ai, oi = i-1, i+1, i
	}
	bb := z.ee[i]
	r := z.p + bb
	if k != 0 {
		z.ee[eo] = z.s * r
	}
	ocp, ocr := z.cp, z.cr
	z.cp, z.cr = z.p, r
	z.s = bb / r
	oldgam := z.gamma
	alpha := z.dd[ai]
	nn := z.p*(alpha-z.sg) - bb*oldgam
	rp := r * z.p
	z.gamma = nn / r
	if z.ql {
		z.dd[oi] = oldgam + (alpha - z.gamma)
	} else {
		z.dd[oi] = oldgam + alpha - z.gamma
	}
	switch {
	case rp > 0x1p-900:
		z.p = nn * nn / rp
	case z.p != 0:
		z.p = (z.gamma * z.gamma) / (z.p / r)
	default:
		z.p = ocp / ocr * bb
	}
}

// pwkSweep2 runs the pending sweeps of a and b, step by step side by side
// while both have steps left (the two lanes' carried values in locals, so
// that they stay in registers), then the rest of the longer one
// (pwkLane.step).
func pwkSweep2(a, b *pwkRun) {
	x, y := newLane(a), newLane(b)
	n := min(len(x.ee), len(y.ee))
	// Lane indices at step k: i = bi + di·k, the written e at i − di, α at
	// i + ai, the written d at i + oi.
	bx, dx, ax, ox := 0, 1, 1, 0
	if x.ql {
		bx, dx, ax, ox = len(x.ee)-1, -1, 0, 1
	}
	by, dy, ay, oy := 0, 1, 1, 0
	if y.ql {
		by, dy, ay, oy = len(y.ee)-1, -1, 0, 1
	}
	eex, ddx, eey, ddy := x.ee, x.dd, y.ee, y.dd
	px, gx, sx, cpx, crx, sgx, qlx := x.p, x.gamma, x.s, x.cp, x.cr, x.sg, x.ql
	py, gy, sy, cpy, cry, sgy, qly := y.p, y.gamma, y.s, y.cp, y.cr, y.sg, y.ql
	for k := 0; k < n; k++ {
		ix, iy := bx+dx*k, by+dy*k
		bbx, bby := eex[ix], eey[iy]
		rx, ry := px+bbx, py+bby
		if k != 0 {
			eex[ix-dx] = sx * rx
			eey[iy-dy] = sy * ry
		}
		ocpx, ocrx, ocpy, ocry := cpx, crx, cpy, cry
		cpx, crx, cpy, cry = px, rx, py, ry
		sx, sy = bbx/rx, bby/ry
		ogx, ogy := gx, gy
		alx, aly := ddx[ix+ax], ddy[iy+ay]
		nnx := px*(alx-sgx) - bbx*ogx
		nny := py*(aly-sgy) - bby*ogy
		rpx, rpy := rx*px, ry*py
		gx, gy = nnx/rx, nny/ry
		if qlx {
			ddx[ix+ox] = ogx + (alx - gx)
		} else {
			ddx[ix+ox] = ogx + alx - gx
		}
		if qly {
			ddy[iy+oy] = ogy + (aly - gy)
		} else {
			ddy[iy+oy] = ogy + aly - gy
		}
		switch {
		case rpx > 0x1p-900:
			px = nnx * nnx / rpx
		case px != 0:
			px = (gx * gx) / (px / rx)
		default:
			px = ocpx / ocrx * bbx
		}
		switch {
		case rpy > 0x1p-900:
			py = nny * nny / rpy
		case py != 0:
			py = (gy * gy) / (py / ry)
		default:
			py = ocpy / ocry * bby
		}
	}
	x.p, x.gamma, x.s, x.cp, x.cr = px, gx, sx, cpx, crx
	y.p, y.gamma, y.s, y.cp, y.cr = py, gy, sy, cpy, cry
	for k := n; k < len(x.ee); k++ {
		x.step(k)
	}
	for k := n; k < len(y.ee); k++ {
		y.step(k)
	}
	a.s, a.p, a.gamma = x.s, x.p, x.gamma
	b.s, b.p, b.gamma = y.s, y.p, y.gamma
}
