package problem

import (
	"fmt"
	"math"
	"strings"
)

// Loss identifies the pairwise loss f(θ; x_i, x_j).
type Loss int

const (
	// AUCLogistic is the paper's AUC surrogate
	// f = 1{ℓ_i > ℓ_j} log(1 + exp((x_j − x_i)ᵀθ)), θ ∈ R^d.
	AUCLogistic Loss = iota
	// AUCHinge is f = 1{ℓ_i > ℓ_j} max(0, 1 − (x_i − x_j)ᵀθ).
	AUCHinge
	// AUCSquaredHinge is f = 1{ℓ_i > ℓ_j} max(0, 1 − (x_i − x_j)ᵀθ)².
	AUCSquaredHinge
	// MetricHinge is the metric-learning loss of Jin et al. (2009), paper Sec. 4:
	// θ ∈ S^d (stored as a full d×d row-major matrix), D_θ(x_i, x_j) =
	// (x_i − x_j)ᵀθ(x_i − x_j), f = max(0, 1 − s_ij (b − D_θ)) with s_ij = +1
	// when i and j share a class and −1 otherwise.
	MetricHinge
)

var lossNames = map[Loss]string{
	AUCLogistic:     "auc-logistic",
	AUCHinge:        "auc-hinge",
	AUCSquaredHinge: "auc-squared-hinge",
	MetricHinge:     "metric-hinge",
}

// LossNames lists the accepted loss names.
var LossNames = []string{"auc-logistic", "auc-hinge", "auc-squared-hinge", "metric-hinge"}

func (l Loss) String() string {
	if l == Custom {
		return "custom"
	}
	if s, ok := lossNames[l]; ok {
		return s
	}
	return fmt.Sprintf("Loss(%d)", int(l))
}

// ParseLoss maps a name (as in LossNames; "auc" means auc-logistic and
// "metric" metric-hinge) to a Loss.
func ParseLoss(s string) (Loss, error) {
	switch strings.ToLower(s) {
	case "auc", "auc-logistic", "logistic":
		return AUCLogistic, nil
	case "auc-hinge", "hinge":
		return AUCHinge, nil
	case "auc-squared-hinge", "squared-hinge":
		return AUCSquaredHinge, nil
	case "metric", "metric-hinge":
		return MetricHinge, nil
	}
	return 0, fmt.Errorf("unknown loss %q (valid: %s)", s, strings.Join(LossNames, ", "))
}

// IsMetric reports whether θ is a d×d matrix.
func (l Loss) IsMetric() bool { return l == MetricHinge }

// Smooth reports whether the loss is differentiable everywhere.
func (l Loss) Smooth() bool { return l == AUCLogistic || l == AUCSquaredHinge }

// ParamDim is the dimension of θ for data of dimension d.
func (l Loss) ParamDim(d int) int {
	if l.IsMetric() {
		return d * d
	}
	return d
}

// Softplus returns log(1 + exp(u)) without overflow or cancellation:
// max(u, 0) + log1p(exp(−|u|)).
func Softplus(u float64) float64 {
	if u > 0 {
		return u + math.Log1p(math.Exp(-u))
	}
	return math.Log1p(math.Exp(u))
}

// Sigmoid returns 1/(1 + exp(−u)) without overflow.
func Sigmoid(u float64) float64 {
	if u >= 0 {
		return 1 / (1 + math.Exp(-u))
	}
	e := math.Exp(u)
	return e / (1 + e)
}

// MarginLoss is φ(m) for the AUC losses, where m = (x_i − x_j)ᵀθ is the
// margin of a contributing pair (ℓ_i > ℓ_j).
func (l Loss) MarginLoss(m float64) float64 {
	switch l {
	case AUCLogistic:
		return Softplus(-m)
	case AUCHinge:
		return math.Max(0, 1-m)
	case AUCSquaredHinge:
		h := math.Max(0, 1-m)
		return h * h
	}
	panic("problem: MarginLoss on " + l.String())
}

// MarginDeriv is φ'(m) for the AUC losses (the hinge uses the subgradient 0 at m = 1).
func (l Loss) MarginDeriv(m float64) float64 {
	switch l {
	case AUCLogistic:
		return -Sigmoid(-m)
	case AUCHinge:
		if m < 1 {
			return -1
		}
		return 0
	case AUCSquaredHinge:
		if m < 1 {
			return -2 * (1 - m)
		}
		return 0
	}
	panic("problem: MarginDeriv on " + l.String())
}

// LogisticMargin returns the AUC logistic loss φ(m) = log(1 + exp(−m)) and
// its derivative φ'(m) = −1/(1 + exp(m)) from one exponential,
// e = exp(−|m|): φ = max(−m, 0) + log1p(e), φ' = −1/(1+e) for m ≤ 0 and
// −e/(1+e) for m > 0. Softplus and Sigmoid compute the same e on the same
// branches, so the results are bit-identical to
// (AUCLogistic.MarginLoss(m), AUCLogistic.MarginDeriv(m)) at one
// exponential fewer.
func LogisticMargin(m float64) (v, dv float64) {
	e := math.Exp(-math.Abs(m))
	if m < 0 {
		v = -m + math.Log1p(e)
	} else {
		v = math.Log1p(e)
	}
	if m <= 0 {
		dv = -1 / (1 + e)
	} else {
		dv = -e / (1 + e)
	}
	return v, dv
}
