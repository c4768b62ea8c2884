package network

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/pairgossip/pairgossip/internal/rng"
)

// unit maps a 64-bit hash to a uniform value in [0, 1) with 53 bits.
func unit(h uint64) float64 { return float64(h>>11) * 0x1p-53 }

// unitC is 1 − unit(h), the same float64 (1 − m·2⁻⁵³ = (2⁵³ − m)·2⁻⁵³, an
// integer below 2⁵³ + 1 times a power of two, is exact either way) with
// the subtraction in the integers, shorter in latency: a session draw's
// guess starts with it (bench/RESULTS.md, "The churn walk in one piece").
func unitC(h uint64) float64 { return float64(1<<53-h>>11) * 0x1p-53 }

// sessionDraw draws an integer session length >= 1 with a given mean
// from a distribution, using a hash h (and values derived from it):
//
//	exponential  ⌈X⌉, X ~ Exp(mean): E = 1/(1 − e^(−1/mean)) ≈ mean + 1/2
//	geometric    on {1, 2, …} with success 1/mean: E = mean exactly
//	lognormal    max(1, ⌈e^(μ+σZ)⌉), μ = ln(mean) − σ²/2: E[e^(μ+σZ)] = mean
//
// Its constants (the geometric's log(1 − 1/mean), the lognormal's μ) are
// computed once per distribution and mean: a churn walk draws a session at
// every switch of every node, and under the reduced schedule at n = 10⁶
// those draws are most of what churn costs.
type sessionDraw struct {
	kind      uint8 // sessionExp, sessionGeo, sessionLogn
	mean      float64
	geo       float64 // log1p(−1/mean)
	mu, sigma float64 // the lognormal's
	// x ≈ ln(1 − u)·scale (scale = −mean, or 1/geo), within
	// lnQuickRel·x + slack of the exact form's x (slack = lnQuickAbs·|scale|;
	// the roundings of the products, relative, are within lnQuickRel's
	// margin).
	scale, slack float64
	// The lognormal's guess is within x·(lb1·s + lb2·τ + lb0) of the exact
	// form's (lognGuess).
	lb0, lb1, lb2 float64
}

const (
	sessionExp = iota
	sessionGeo
	sessionLogn
	sessionOne // geometric with mean ≤ 1: always 1
)

func newSessionDraw(dist string, mean, sigma float64) sessionDraw {
	d := sessionDraw{mean: mean, sigma: sigma}
	switch dist {
	case DistExponential:
		d.kind = sessionExp
		d.scale = -mean
	case DistGeometric:
		d.kind = sessionGeo
		if mean <= 1 {
			d.kind = sessionOne
		}
		d.geo = log1pNoFMA(-1 / mean)
		d.scale = 1 / d.geo
	case DistLognormal:
		d.kind = sessionLogn
		d.mu = lnUnit(mean) - float64(sigma*sigma)/2
	default:
		d.kind = sessionOne + 1 // no distribution: x = 0, a length of 1
	}
	d.slack = lnQuickAbs * math.Abs(d.scale)
	if d.kind == sessionLogn {
		dc := cosQuickAbs + 2e-15
		d.lb1 = 1.01 * sigma * (1.02e-8 + dc + 2e-15)
		d.lb2 = 1.01 * sigma * (1 + dc)
		d.lb0 = 1.01*(4.4e-16*math.Abs(d.mu)) + 1.01*expQuickRel + 3e-16
		if !(sigma <= 10) {
			d.lb1 = math.Inf(1)
		}
	}
	return d
}

// length is the session length the hash h draws.
//
// Its x (⌈ln(1 − u)·scale⌉ for the geometric and the exponential, ⌈e^(μ+σZ)⌉
// for the lognormal) is guessed from logarithms, cosines and exponentials
// without a division or a branch the predictor cannot guess (lnQuick,
// cos2piQuick, expQuick; inlined where they can be: a call costs the walk
// that draws it a few per cent) and taken where no integer is within the
// guess's error bound of it; lengthExact gives every other length, and
// these where an integer is that near: the same integers as the exact
// form's, at less cost (TestQuickLengthIsExact; bench/RESULTS.md, "Session
// draws without a division").
func (d *sessionDraw) length(h uint64) int64 {
	switch d.kind {
	case sessionExp, sessionGeo:
		g := lnQuick(unitC(h)) * d.scale
		if c, ok := guessed(g, lnQuickRel*g+d.slack); ok {
			return int64(c)
		}
	case sessionLogn:
		return d.lognLength(unitC(h), secondUnit(h))
	}
	return d.lengthExact(h)
}

// guessed returns ⌈g⌉ and whether it is the ceiling of every x within b of
// g: no integer within b of g, and g below 2⁵⁰ (where the float64s are
// still a fraction apart). ⌈g⌉ >= 1 then (g >= 0, ⌈g⌉ − g > 0).
func guessed(g, b float64) (float64, bool) {
	c := math.Ceil(g)
	f := c - g
	return c, f > b && f < 1-b && g < 1<<50
}

// lognLength is the lognormal's length from its two uniforms (length's
// u1 = 1 − u and u2): the guess where it is safe, else the exact form.
func (d *sessionDraw) lognLength(u1, u2 float64) int64 {
	if c, ok := guessed(d.lognGuess(u1, u2)); ok {
		return int64(c)
	}
	return clampLength(math.Ceil(d.lognExact(u1, u2)))
}

// lognGuess returns the lognormal's e^(μ+σZ), Z = √a·cos(2π·u2) with
// a = −2 ln u1, from the quick functions, and a bound on its distance from
// the exact form's (lengthExact's before the ceiling). The bound follows
// the errors through (newSessionDraw folds the constants into lb0…lb2):
//
//	|a − a_e|  ≤ da = 1.01·10⁻⁸·a + 2·10⁻¹⁴ (lnQuick's bound doubled, and lnUnit's ulp)
//	|s − s_e|  ≤ 1.01·10⁻⁸·s + τ, s = √a: da/s for s ≥ 10⁻³ (τ = 2·10⁻¹¹), √da below (τ = 1.8·10⁻⁷)
//	|Z − Z_e|  ≤ |s − s_e|·(1 + Δc) + s·Δc + roundings, Δc = cosQuickAbs + 2·10⁻¹⁵ (the exact form rounds 2π·u2)
//	|y − y_e|  ≤ σ·|Z − Z_e| + 4.4·10⁻¹⁶·(2σs + |μ|), y = μ + σZ
//	|x − x_e|  ≤ x·(1.01·|y − y_e| + 1.01·expQuickRel + 3·10⁻¹⁶)
//
// where the last line needs |y − y_e| ≤ 0.01: with σ ≤ 10 and s ≤ 8.6
// (u1 ≥ 2⁻⁵³) it is below 10⁻⁵ (a larger σ gets no bound: the exact form
// decides).
func (d *sessionDraw) lognGuess(u1, u2 float64) (x, b float64) {
	s := math.Sqrt(-2 * lnQuick(u1))
	y := d.mu + d.sigma*(s*cos2piQuick(u2))
	x = expQuick(max(-700, min(700, y)))
	tau := 2e-11
	if s < 1e-3 {
		tau = 1.8e-7
	}
	return x, x * (d.lb1*s + d.lb2*tau + d.lb0)
}

// lengthExact is length from the definition.
func (d *sessionDraw) lengthExact(h uint64) int64 {
	u := unit(h)
	var x float64
	switch d.kind {
	case sessionExp:
		x = math.Ceil(-d.mean * lnUnit(1-u))
	case sessionGeo:
		x = math.Ceil(lnUnit(1-u) / d.geo)
	case sessionOne:
		return 1
	case sessionLogn:
		// Box–Muller from two uniforms derived from h; u1 in (0, 1].
		x = math.Ceil(d.lognExact(1-u, secondUnit(h)))
	}
	return clampLength(x)
}

// secondUnit is the lognormal's second uniform u2, derived from its hash h
// (the first is unit(h)).
func secondUnit(h uint64) float64 { return unit(rng.Mix(h + 0x9e3779b97f4a7c15)) }

// lognExact is the lognormal's e^(μ+σZ), Z = √(−2 ln u1)·cos(2π·u2), by
// its definition.
func (d *sessionDraw) lognExact(u1, u2 float64) float64 {
	z := math.Sqrt(-2*lnUnit(u1)) * cosNoFMA(2*math.Pi*u2)
	return expNoFMA(d.mu + float64(d.sigma*z))
}

// clampLength is the length of a ceiling x: x in [1, 2⁶²], 1 for NaN.
func clampLength(x float64) int64 {
	if !(x >= 1) {
		return 1
	}
	if x > 1<<62 {
		return 1 << 62
	}
	return int64(x)
}

// expected returns E[L], the mean of the session length the distribution
// draws (its discretisation included, so that the long-run fraction of
// time online is E_up/(E_up + E_down), not U/(U + D)):
//
//	geometric    mean (1 when mean ≤ 1)
//	exponential  1/(1 − e^(−1/mean)): P(L > k) = e^(−k/mean)
//	lognormal    1 + Σ_{k≥1} P(Y > k), Y = e^(μ+σZ): the first 2¹⁶ terms
//	             summed, the rest by Euler–Maclaurin from E[(Y − K)⁺]
func (d *sessionDraw) expected() float64 {
	switch d.kind {
	case sessionGeo:
		return d.mean
	case sessionExp:
		return -1 / math.Expm1(-1/d.mean)
	case sessionLogn:
		q := func(y float64) float64 { return 0.5 * math.Erfc((math.Log(y)-d.mu)/(d.sigma*math.Sqrt2)) } // P(Y > y)
		const K = 1 << 16
		// Neumaier's compensated sum: 2¹⁶ plain adds lose about 1e-13 of
		// it, which a gap compared with an independent one shows.
		sum, comp := 1.0, 0.0
		for k := 1; k < K; k++ {
			v := q(float64(k))
			t := sum + v
			if math.Abs(sum) >= math.Abs(v) {
				comp += (sum - t) + v
			} else {
				comp += (v - t) + sum
			}
			sum = t
		}
		sum += comp
		// Σ_{k≥K} f(k) = ∫_K^∞ f + f(K)/2 − f'(K)/12 + …, f = q, with
		// ∫_K^∞ P(Y > y) dy = E[(Y − K)⁺] = e^(μ+σ²/2)·Q((ln K − μ − σ²)/σ) − K·Q((ln K − μ)/σ)
		// and f'(y) = −φ((ln y − μ)/σ)/(σy); the next term is O(f'''(K)), below 1e-15 of E here.
		kf := float64(K)
		z := (math.Log(kf) - d.mu) / d.sigma
		tail := math.Exp(d.mu+d.sigma*d.sigma/2)*0.5*math.Erfc((z-d.sigma)/math.Sqrt2) - kf*q(kf)
		fp := -math.Exp(-z*z/2) / (math.Sqrt(2*math.Pi) * d.sigma * kf)
		return sum + tail + q(kf)/2 - fp/12
	case sessionOne:
		return 1
	}
	return 1
}

// cursor is a node's position in its churn sessions: session idx covers
// iterations [start, next) and is online if on is set (st = idx<<1 | on);
// ahead[i] is the length of session idx+1+i, drawn ahead, so that the test
// of the next switches waits on loads, not on the draws just made
// (bench/RESULTS.md, "Session draws"); 32 bits each, so that a cursor stays
// 32 bytes: at 40, half of them straddle two cache lines, and the
// asynchronous loop, which reads two cursors at random nodes an event, lost
// what the walk gained (the same section). start 0 means not yet
// initialised.
type cursor struct {
	start, next int64
	st          int64
	ahead       [lookahead]uint32 // 0: longer than 32 bits, drawn again when used
}

// lookahead is how many sessions past its own a cursor has drawn: two
// cover the 1.6 switches a node makes on average in a block of the reduced
// schedule at 10 % churn, and three or four were no faster.
const lookahead = 2

// churn holds the session model and one cursor per node.
type churn struct {
	dist            string
	up, down, sigma float64
	dom, domStart   uint64
	domKey          uint64  // rng.HashKey(dom)
	pOnline         float64 // up/(up+down): the start's probability of being online
	// pi0 is E_up/(E_up + E_down) with the sessions' exact means
	// (sessionDraw.expected): the long-run fraction of time online, π of
	// the effective gap.
	pi0              float64
	upDraw, downDraw sessionDraw
	cur              []cursor
	// file mode: offline intervals [off[x][0], off[x][1]] (inclusive) of
	// node k at off[offs[k]:offs[k+1]], sorted; fidx is the cursor.
	file string
	offs []int
	off  [][2]int64
	fidx []int
	last int64 // the largest end in the file
}

func newChurn(c Churn, n int, seed uint64) (*churn, error) {
	ch := &churn{dist: c.Dist, up: c.Up, down: c.Down, sigma: c.Sigma,
		dom: rng.Hash(seed, hashChurn, 0), domStart: rng.Hash(seed, hashChurnStart, 0)}
	if ch.sigma == 0 {
		ch.sigma = 1
	}
	if c.Dist == DistFile {
		offs, off, last, err := ReadSessions(c.File, n)
		if err != nil {
			return nil, err
		}
		ch.file, ch.offs, ch.off, ch.last = c.File, offs, off, last
		ch.fidx = make([]int, n)
		return ch, nil
	}
	ch.domKey = rng.HashKey(ch.dom)
	ch.pOnline = c.Up / (c.Up + c.Down)
	ch.upDraw, ch.downDraw = newSessionDraw(ch.dist, ch.up, ch.sigma), newSessionDraw(ch.dist, ch.down, ch.sigma)
	ch.pi0 = onlineFraction(ch.upDraw, ch.downDraw)
	ch.cur = make([]cursor, n)
	return ch, nil
}

// onlineFraction is π, the long-run fraction of time a node is online,
// E_up/(E_up + E_down) with the sessions' exact means: the same for every
// node of a parametric churn.
func onlineFraction(up, down sessionDraw) float64 {
	eu, ed := up.expected(), down.expected()
	return eu / (eu + ed)
}

// churnPi is onlineFraction for the parametric churn c (not a file), as
// newChurn computes it.
func churnPi(c Churn) float64 {
	sigma := c.Sigma
	if sigma == 0 {
		sigma = 1
	}
	return onlineFraction(newSessionDraw(c.Dist, c.Up, sigma), newSessionDraw(c.Dist, c.Down, sigma))
}

// reset forgets every cursor (after a checkpoint restore; optional, since
// a t before a cursor resets that cursor by itself).
func (ch *churn) reset() {
	clear(ch.cur)
	clear(ch.fidx)
}

// first returns node k's cursor at t = 1.
func (ch *churn) first(k int) cursor {
	on := unit(rng.Hash(ch.domStart, uint64(k), 0)) < ch.pOnline
	c := cursor{start: 1, next: 1 + ch.length(k, 0, on)}
	if on {
		c.st = 1
	}
	for i := range c.ahead {
		c.ahead[i] = short(ch.length(k, int64(i+1), on == (i%2 == 1)))
	}
	return c
}

// length draws the length of node k's session idx.
func (ch *churn) length(k int, idx int64, online bool) int64 {
	return ch.lengthKA(rng.HashKeyA(ch.domKey, uint64(k)), idx, online)
}

// online reports whether node k is online at iteration t >= 1.
func (ch *churn) online(k int, t int64) bool {
	if ch.off != nil {
		return ch.fileOnline(k, t)
	}
	c := &ch.cur[k]
	// Back over the sessions before the cursor's (session 0 starts at 1
	// ≤ t, so the walk stops there at the latest): a question a little
	// behind the cursor (the trace's count of online nodes after a block
	// walked some cursors on) costs a step back, not a walk from t = 1.
	for c.start != 0 && t < c.start && c.st > 1 {
		st := (c.st - 2) ^ 1 // session idx−1, the other state
		copy(c.ahead[1:], c.ahead[:lookahead-1])
		c.ahead[0] = short(c.next - c.start)
		c.next = c.start
		c.start -= ch.length(k, st>>1, st&1 != 0)
		c.st = st
	}
	if c.start == 0 || t < c.start {
		*c = ch.first(k)
	}
	if t >= c.next {
		ka := rng.HashKeyA(ch.domKey, uint64(k))
		for t >= c.next {
			ch.step(ka, c)
		}
	}
	return c.st&1 != 0
}

// step moves node k's cursor c to its next session; ka is
// rng.HashKeyA(ch.domKey, k), the part of its draws' hash that depends on
// k alone, computed once per walk.
func (ch *churn) step(ka uint64, c *cursor) {
	st := (c.st + 2) ^ 1 // session idx+1, the other state
	l := int64(c.ahead[0])
	if l == 0 {
		l = ch.lengthKA(ka, st>>1, st&1 != 0)
	}
	c.start = c.next
	c.next += l
	c.st = st
	copy(c.ahead[:], c.ahead[1:])
	c.ahead[lookahead-1] = short(ch.lengthKA(ka, st>>1+lookahead, (st^lookahead)&1 != 0))
}

// lengthKA is length from ka = rng.HashKeyA(ch.domKey, k).
func (ch *churn) lengthKA(ka uint64, idx int64, online bool) int64 {
	d := &ch.downDraw
	if online {
		d = &ch.upDraw
	}
	return d.length(rng.HashKeyAB(ka, uint64(idx)))
}

// short is a session length as a cursor holds it ahead: itself below 2³²,
// else 0 (step draws it again).
func short(l int64) uint32 {
	if l >= 1<<32 {
		return 0
	}
	return uint32(l)
}

func (ch *churn) fileOnline(k int, t int64) bool {
	iv := ch.off[ch.offs[k]:ch.offs[k+1]]
	x := ch.fidx[k]
	if x > 0 && t <= iv[x-1][1] {
		x, _ = slices.BinarySearchFunc(iv, t, func(e [2]int64, t int64) int {
			if e[1] < t {
				return -1
			}
			return 1
		})
	}
	for x < len(iv) && t > iv[x][1] {
		x++
	}
	ch.fidx[k] = x
	return !(x < len(iv) && t >= iv[x][0])
}

// pi returns node k's long-run probability of being online: for the
// distributions E_up/(E_up + E_down) with the sessions' exact means (their
// rounding up to whole iterations included: an exponential session of
// mean 1 lasts 1.58 iterations on average), and for a file the fraction of
// iterations 1..horizon (a run's length; 0: 1..last, the file's largest
// end) the node is online — 1 for an empty file.
func (ch *churn) pi(k int, horizon int64) float64 {
	if ch.off == nil {
		return ch.pi0
	}
	span := ch.last
	if horizon > 0 {
		span = horizon
	}
	if span <= 0 { // an empty file: nobody is ever offline
		return 1
	}
	var offline int64
	for _, e := range ch.off[ch.offs[k]:ch.offs[k+1]] {
		if e[0] <= span {
			offline += min(e[1], span) - e[0] + 1
		}
	}
	return 1 - float64(offline)/float64(span)
}

// ReadSessions reads a churn file: lines `node start end` (0-based node,
// 1-based iterations) saying that node is offline at every iteration t with
// start <= t <= end; '#' starts a comment. A node's intervals may come in
// any order but must not overlap. It returns the intervals grouped by node
// (those of node k at off[offs[k]:offs[k+1]], sorted) and the largest end.
// Errors name file:line. Memory: 16 bytes per interval and 8 per node.
func ReadSessions(path string, n int) (offs []int, off [][2]int64, last int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("--churn: %w", err)
	}
	defer f.Close()
	type rec struct {
		k    int32
		a, b int64
		line int
	}
	var recs []rec
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		s, _, _ := strings.Cut(sc.Text(), "#")
		fs := strings.Fields(s)
		if len(fs) == 0 {
			continue
		}
		if len(fs) != 3 {
			return nil, nil, 0, fmt.Errorf("--churn: %s:%d: expected `node start end`, got %q", path, line, strings.TrimSpace(s))
		}
		k, e1 := strconv.ParseInt(fs[0], 10, 32)
		a, e2 := strconv.ParseInt(fs[1], 10, 64)
		b, e3 := strconv.ParseInt(fs[2], 10, 64)
		switch {
		case e1 != nil || e2 != nil || e3 != nil:
			return nil, nil, 0, fmt.Errorf("--churn: %s:%d: expected three integers, got %q", path, line, strings.TrimSpace(s))
		case k < 0 || int(k) >= n:
			return nil, nil, 0, fmt.Errorf("--churn: %s:%d: node %d outside [0, %d)", path, line, k, n)
		case a < 1 || b < a:
			return nil, nil, 0, fmt.Errorf("--churn: %s:%d: interval %d..%d needs 1 <= start <= end", path, line, a, b)
		}
		recs = append(recs, rec{int32(k), a, b, line})
	}
	if err := sc.Err(); err != nil {
		return nil, nil, 0, fmt.Errorf("--churn: %s:%d: %w", path, line+1, err)
	}
	slices.SortStableFunc(recs, func(x, y rec) int {
		if x.k != y.k {
			return int(x.k - y.k)
		}
		return compareInt64(x.a, y.a)
	})
	offs = make([]int, n+1)
	off = make([][2]int64, len(recs))
	for x, r := range recs {
		if x > 0 && recs[x-1].k == r.k && recs[x-1].b >= r.a {
			return nil, nil, 0, fmt.Errorf("--churn: %s:%d: node %d's interval %d..%d overlaps the one at line %d", path, r.line, r.k, r.a, r.b, recs[x-1].line)
		}
		off[x] = [2]int64{r.a, r.b}
		offs[r.k+1]++
		last = max(last, r.b)
	}
	for k := 0; k < n; k++ {
		offs[k+1] += offs[k]
	}
	return offs, off, last, nil
}

func compareInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
