package dataset

import "fmt"

// Levels returns the rows' ordinal levels for ranking (issue #20): the
// class indices, which for numeric labels are in increasing order of the
// labels' values (so levels 0 < 1 < 2 keep the labels' order whatever
// their spelling: 1, 2, 5 or 0.5, 1.5). Text labels have no order a ranking
// can use: an error names one.
func (ds *Dataset) Levels() ([]int32, error) {
	for _, name := range ds.ClassNames {
		if _, ok := numericLabel(name); !ok {
			return nil, fmt.Errorf("ranking needs ordered numeric labels (levels), and %q is not a number", name)
		}
	}
	return ds.Class, nil
}
