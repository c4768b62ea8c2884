package problem

import (
	"fmt"
	"math"
	"strings"
)

// Two objectives of the paper's list, built on Objective (issue #20).

// Ranking is multipartite ranking: the labels are ordered relevance levels
// and f(θ; x_i, x_j) = 1{ℓ_i > ℓ_j} φ((x_i − x_j)ᵀθ), θ ∈ R^d, with φ one of
// the three AUC surrogates (Surrogate: AUCLogistic, AUCHinge,
// AUCSquaredHinge). With two levels it is AUC maximization, bit for bit
// (the same arithmetic as the built-in loss). It is measured by the
// pairwise ranking accuracy (C-index; Scorer), the AUC with two levels.
type Ranking struct {
	Surrogate Loss
}

// NewRanking returns the multipartite ranking objective with a surrogate.
func NewRanking(surrogate Loss) (*Ranking, error) {
	switch surrogate {
	case AUCLogistic, AUCHinge, AUCSquaredHinge:
		return &Ranking{Surrogate: surrogate}, nil
	}
	return nil, fmt.Errorf("ranking: surrogate must be an AUC loss (logistic, hinge, squared hinge), not %s", surrogate)
}

// Info implements Objective.
func (r *Ranking) Info() ObjectiveInfo {
	name := "ranking"
	if r.Surrogate != AUCLogistic {
		name += "-" + strings.TrimPrefix(r.Surrogate.String(), "auc-")
	}
	return ObjectiveInfo{Name: name, Params: "surrogate=" + r.Surrogate.String(), Smooth: r.Surrogate.Smooth()}
}

// Contributes implements Objective: ℓ_i > ℓ_j.
func (r *Ranking) Contributes(li, lj int32) bool { return li > lj }

// Loss implements Objective.
func (r *Ranking) Loss(theta, xi, xj []float64, _, _ int) float64 {
	return r.Surrogate.MarginLoss(margin(theta, xi, xj))
}

// Grad implements Objective.
func (r *Ranking) Grad(g []float64, w float64, theta, xi, xj []float64, _, _ int) bool {
	w *= r.Surrogate.MarginDeriv(margin(theta, xi, xj))
	if w == 0 {
		return false
	}
	AddScaledDiff(g, w, xi, xj)
	return true
}

// Score implements Scorer: x_iᵀθ.
func (r *Ranking) Score(theta, x []float64) float64 {
	var s float64
	for a, v := range x {
		s += float64(v * theta[a])
	}
	return s
}

// SmoothLoss implements HuberSmoother for the hinge surrogate (the squared
// hinge and the logistic loss are smooth: mu is ignored).
func (r *Ranking) SmoothLoss(g []float64, w float64, theta, xi, xj []float64, _, _ int, mu float64) float64 {
	m := margin(theta, xi, xj)
	var v, dv float64
	if r.Surrogate == AUCHinge {
		var h float64
		h, dv = huber(1-m, mu)
		v, dv = h, -dv
	} else {
		v, dv = r.Surrogate.MarginLoss(m), r.Surrogate.MarginDeriv(m)
	}
	if g != nil && dv != 0 {
		AddScaledDiff(g, w*dv, xi, xj)
	}
	return v
}

// Similarity is bilinear similarity learning: θ = W ∈ R^{d×d} (row-major,
// not necessarily PSD), f(W; x_i, x_j) = [1 − s_ij x_iᵀ W x_j]₊ with s_ij =
// +1 when i and j have the same label and −1 otherwise; every pair
// contributes. Pair it with ψ = λ‖W‖²_F (reg l2) or a Frobenius ball
// (reg l2-ball). Labels are read by index, so it holds them.
type Similarity struct {
	labels []int32
}

// NewSimilarity returns the similarity objective for these labels (class
// indices; they must be the problem's).
func NewSimilarity(labels []int32) *Similarity { return &Similarity{labels: labels} }

// Info implements Objective.
func (s *Similarity) Info() ObjectiveInfo {
	return ObjectiveInfo{Name: "similarity", Params: "bilinear-hinge", Matrix: true}
}

// Contributes implements Objective: every pair.
func (s *Similarity) Contributes(_, _ int32) bool { return true }

func (s *Similarity) sign(i, j int) float64 {
	if s.labels[i] == s.labels[j] {
		return 1
	}
	return -1
}

// bilinear returns x_iᵀ W x_j.
func bilinear(w, xi, xj []float64) float64 {
	d := len(xi)
	xj = xj[:d]
	var t float64
	for a := 0; a < d; a++ {
		if xi[a] == 0 {
			continue
		}
		row := w[a*d : a*d+d]
		var r float64
		for c := range row {
			r += float64(row[c] * xj[c])
		}
		t += float64(xi[a] * r)
	}
	return t
}

// Loss implements Objective.
func (s *Similarity) Loss(theta, xi, xj []float64, i, j int) float64 {
	return math.Max(0, 1-float64(s.sign(i, j)*bilinear(theta, xi, xj)))
}

// Grad implements Objective: −w·s_ij x_i x_jᵀ when the hinge is active.
func (s *Similarity) Grad(g []float64, w float64, theta, xi, xj []float64, i, j int) bool {
	sg := s.sign(i, j)
	if 1-float64(sg*bilinear(theta, xi, xj)) <= 0 {
		return false
	}
	addOuter(g, -w*sg, xi, xj)
	return w != 0
}

// addOuter adds w·x_i x_jᵀ to the d×d row-major g.
func addOuter(g []float64, w float64, xi, xj []float64) {
	d := len(xi)
	xj = xj[:d]
	for a := 0; a < d; a++ {
		wa := w * xi[a]
		if wa == 0 {
			continue
		}
		row := g[a*d : a*d+d]
		for c := range row {
			row[c] += float64(wa * xj[c])
		}
	}
}

// SmoothLoss implements HuberSmoother.
func (s *Similarity) SmoothLoss(g []float64, w float64, theta, xi, xj []float64, i, j int, mu float64) float64 {
	sg := s.sign(i, j)
	h, dh := huber(1-float64(sg*bilinear(theta, xi, xj)), mu)
	if g != nil && dh != 0 {
		addOuter(g, -w*sg*dh, xi, xj)
	}
	return h
}

// Problem names of the objectives built on Objective, for Config.Problem
// and the command line.
var ObjectiveProblemNames = []string{"ranking", "ranking-hinge", "ranking-squared-hinge", "similarity"}

// IsObjectiveProblem reports whether a problem name is one of
// ObjectiveProblemNames, and whether its θ is a matrix.
func IsObjectiveProblem(name string) (ok, matrix bool) {
	switch strings.ToLower(name) {
	case "ranking", "multipartite", "ranking-logistic", "ranking-hinge", "ranking-squared-hinge":
		return true, false
	case "similarity", "bilinear", "similarity-hinge":
		return true, true
	}
	return false, false
}

// NewObjectiveByName returns the objective of a problem name of
// ObjectiveProblemNames for these labels.
func NewObjectiveByName(name string, labels []int32) (Objective, error) {
	switch strings.ToLower(name) {
	case "ranking", "multipartite", "ranking-logistic":
		return NewRanking(AUCLogistic)
	case "ranking-hinge":
		return NewRanking(AUCHinge)
	case "ranking-squared-hinge":
		return NewRanking(AUCSquaredHinge)
	case "similarity", "bilinear", "similarity-hinge":
		return NewSimilarity(labels), nil
	}
	return nil, fmt.Errorf("unknown objective %q (valid: %s)", name, strings.Join(ObjectiveProblemNames, ", "))
}

// ParseProblemName accepts a built-in loss name (ParseLoss) or an
// objective name (ObjectiveProblemNames).
func ParseProblemName(s string) error {
	if ok, _ := IsObjectiveProblem(s); ok {
		return nil
	}
	if _, err := ParseLoss(s); err != nil {
		return fmt.Errorf("unknown problem %q (valid: %s, %s)", s, strings.Join(LossNames, ", "), strings.Join(ObjectiveProblemNames, ", "))
	}
	return nil
}
