package lanczos

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/pairgossip/pairgossip/internal/rng"
)

// pathMul is the Laplacian of the path on len(x) nodes, weights w.
func pathMul(w float64) func(dst, x []float64) {
	return func(dst, x []float64) {
		clear(dst)
		for i := 0; i+1 < len(x); i++ {
			d := w * (x[i] - x[i+1])
			dst[i] += d
			dst[i+1] -= d
		}
	}
}

// TestSmallestPath: λ₂ of a path's Laplacian is 2w(1 − cos(π/n)), found to
// the tolerance with its residual; a cancelled context stops the iteration
// with its error; too few products is a NotConverged with the estimate.
func TestSmallestPath(t *testing.T) {
	for _, n := range []int{3, 10, 60, 500} {
		for _, w := range []float64{1, 1e-6} {
			want := 2 * w * (1 - math.Cos(math.Pi/float64(n)))
			res, err := Smallest(context.Background(), n, pathMul(w), 4*w, 1e-10, 100000, rng.New(1, 1))
			// Below basisSize+1 nodes the basis spans the whole space: exact,
			// whatever the residual.
			converged := n-1 <= basisSize || res.Resid <= 1e-10*res.Theta
			if err != nil || math.Abs(res.Theta-want) > 1e-8*want || !converged {
				t.Errorf("n = %d, w = %g: %+v, %v; want %.17g", n, w, res, err, want)
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Smallest(ctx, 500, pathMul(1), 4, 1e-10, 100000, rng.New(1, 1)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	var nc *NotConverged
	if _, err := Smallest(context.Background(), 5000, pathMul(1), 4, 1e-10, 200, rng.New(1, 1)); !errors.As(err, &nc) || nc.Iters < 200 {
		t.Errorf("200 products on a path of 5000: %v", err)
	}
}
