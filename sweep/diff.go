package sweep

import (
	"fmt"
	"math"
	"sort"
)

// diffCols are the columns of the runs table compared by Diff: everything a
// run computes (not its wall time, host or the time it finished).
var diffCols = []string{"status", "config", "iter", "grad_evals", "grad_evals_nonzero", "objective_mean",
	"objective_std", "objective_min", "objective_max", "auc_mean", "bias", "consensus", "optimum_objective", "eval_nodes"}

func sameValue(a, b any) bool {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		if !ok {
			if yi, ok := b.(int64); ok { // SQLite may store integral reals as integers
				return x == float64(yi)
			}
			return false
		}
		return x == y || (math.IsNaN(x) && math.IsNaN(y))
	case int64:
		if y, ok := b.(float64); ok {
			return float64(x) == y
		}
	case []byte:
		if y, ok := b.([]byte); ok {
			return string(x) == string(y)
		}
		if y, ok := b.(string); ok {
			return string(x) == y
		}
	}
	return a == b
}

// Diff compares the results of two databases: the same runs, with the same
// status, final metrics and trace rows, compared exactly (NaN equals NaN).
// Wall times are not compared. It returns one line per difference, at most
// max lines (0: all) and the total count.
func Diff(a, b *Store, max int) ([]string, int, error) {
	var out []string
	count := 0
	add := func(format string, args ...any) {
		count++
		if max <= 0 || len(out) < max {
			out = append(out, fmt.Sprintf(format, args...))
		}
	}
	ra, err := a.resultRows()
	if err != nil {
		return nil, 0, err
	}
	rb, err := b.resultRows()
	if err != nil {
		return nil, 0, err
	}
	ta, err := a.traceRows()
	if err != nil {
		return nil, 0, err
	}
	tb, err := b.traceRows()
	if err != nil {
		return nil, 0, err
	}
	ids := map[string]bool{}
	for id := range ra {
		ids[id] = true
	}
	for id := range rb {
		ids[id] = true
	}
	sorted := make([]string, 0, len(ids))
	for id := range ids {
		sorted = append(sorted, id)
	}
	sort.Strings(sorted)
	for _, id := range sorted {
		x, y := ra[id], rb[id]
		switch {
		case x == nil:
			add("run %s: only in %s", id, b.Path)
			continue
		case y == nil:
			add("run %s: only in %s", id, a.Path)
			continue
		}
		for i, c := range diffCols {
			if !sameValue(x[0][i], y[0][i]) {
				add("run %s: %s: %v vs %v", id, c, show(x[0][i]), show(y[0][i]))
			}
		}
		p, q := ta[id], tb[id]
		if len(p) != len(q) {
			add("run %s: %d trace rows vs %d", id, len(p), len(q))
			continue
		}
		for r := range p {
			for i, c := range traceCols {
				if !sameValue(p[r][i], q[r][i]) {
					add("run %s: trace row %d: %s: %v vs %v", id, r, c, show(p[r][i]), show(q[r][i]))
				}
			}
		}
	}
	return out, count, nil
}

func show(v any) any {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case []byte:
		return string(x)
	case float64:
		return fmt.Sprintf("%.17g", x)
	}
	return v
}
