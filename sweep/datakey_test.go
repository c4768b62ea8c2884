package sweep

import (
	"testing"

	"github.com/pairgossip/pairgossip"
)

// TestDataKey: runs share a cached data size or optimum only when they load
// the same data (a synthetic set of another size, or a CSV file read with
// other columns, is another data set), whatever their worker counts.
func TestDataKey(t *testing.T) {
	base := pairgossip.DefaultConfig()
	base.Data, base.N, base.Dim = "synthetic-auc", 5000, 8
	same := base
	same.Workers = 7
	if dataKey(base) != dataKey(same) {
		t.Fatal("the worker count changed the data key")
	}
	for name, mod := range map[string]func(*pairgossip.Config){
		"n":            func(c *pairgossip.Config) { c.N = 6000 },
		"dim":          func(c *pairgossip.Config) { c.Dim = 9 },
		"data seed":    func(c *pairgossip.Config) { c.DataSeed = 2 },
		"label column": func(c *pairgossip.Config) { c.LabelColumn = 3 },
		"csv header":   func(c *pairgossip.Config) { c.CSVHeader = "present" },
		"drop columns": func(c *pairgossip.Config) { c.DropColumns = "id" },
	} {
		c := base
		mod(&c)
		if dataKey(c) == dataKey(base) {
			t.Errorf("%s: same data key %s", name, dataKey(c))
		}
	}
}
