package ranks

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"github.com/pairgossip/pairgossip/output"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pairgossip/pairgossip/dataset"
	"github.com/pairgossip/pairgossip/mpi"
)

// writeNPY writes a .npy file (format 1.0) of the given dtype and shape.
func writeNPY(t testing.TB, path, descr, shape string, data []byte) {
	t.Helper()
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape)
	pad := 64 - (10+len(dict)+1)%64
	dict += strings.Repeat(" ", pad%64) + "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(dict)))
	b.WriteString(dict)
	b.Write(data)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeAUCData writes n rows of the synthetic AUC data (d = 16) as
// dir/X.npy (float32, so that the files are decoded, not copied) and
// dir/y.npy (int64 labels 2 and 7), and the same as dir/data.csv (the
// label last), and returns X.npy's path.
func writeAUCData(t testing.TB, dir string, n int) string {
	t.Helper()
	const d = 16
	gen, err := dataset.NewSyntheticAUCRows(dataset.SyntheticAUCConfig{N: n, D: d, Separation: dataset.DefaultAUCSeparation,
		PositiveFraction: dataset.DefaultAUCPositive, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	var x, y, csv, hcsv bytes.Buffer
	// data_h.csv: the same rows after a header line, with CRLF line ends
	// and a blank line every 700 rows (line numbers differ from rows).
	for j := range d {
		fmt.Fprintf(&hcsv, "f%d, ", j+1)
	}
	hcsv.WriteString("class\r\n")
	row := make([]float64, d)
	for i := range n {
		if i%700 == 699 {
			hcsv.WriteString(" \r\n")
		}
		lab := int64(2)
		if gen.Row(i, row) == 1 {
			lab = 7
		}
		for _, v := range row {
			binary.Write(&x, binary.LittleEndian, math.Float32bits(float32(v)))
			fmt.Fprintf(&csv, "%v,", float32(v))
			fmt.Fprintf(&hcsv, "%v, ", float32(v))
		}
		binary.Write(&y, binary.LittleEndian, lab)
		fmt.Fprintf(&csv, "%d\n", lab)
		fmt.Fprintf(&hcsv, "%d\r\n", lab)
	}
	if err := os.WriteFile(filepath.Join(dir, "data.csv"), csv.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "data_h.csv"), hcsv.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// data_m.csv: data.csv with a missing value ("?") in every 97th row,
	// which every rank then loads whole (imputation needs every row).
	lines := bytes.SplitAfter(csv.Bytes(), []byte("\n"))
	for i := 0; i < len(lines); i += 97 {
		if k := bytes.IndexByte(lines[i], ','); k >= 0 {
			lines[i] = append([]byte("?"), lines[i][k:]...)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "data_m.csv"), bytes.Join(lines, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	writeNPY(t, filepath.Join(dir, "X.npy"), "<f4", fmt.Sprintf("(%d, %d)", n, d), x.Bytes())
	writeNPY(t, filepath.Join(dir, "y.npy"), "<i8", fmt.Sprintf("(%d,)", n), y.Bytes())
	return filepath.Join(dir, "X.npy")
}

// TestOneRankNPY: one rank reading a .npy data set by rows (or loading a
// CSV file whole) runs what one process loading it runs, bit for bit.
func TestOneRankNPY(t *testing.T) {
	t.Setenv("PAIRGOSSIP_DIST_DATA", writeAUCData(t, t.TempDir(), 3000))
	for _, tc := range []distCase{{3000, "sampled", "auc", "npy"}, {3000, "auto", "auc-hinge", "npy"}, {3000, "sampled", "auc", "csv"}, {3000, "auto", "auc-hinge", "csvh"}} {
		cfg := workerConfig(tc)
		wantTrace, wantSum, wantState := singleProcess(t, cfg)
		r, err := Prepare(mpi.Self(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		trace, err := r.Execute(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := output.TraceCSV(trace); !bytes.Equal(got, wantTrace) {
			t.Fatalf("%s: trace differs\n got %s\nwant %s", tc, got, wantTrace)
		}
		gj, _ := json.Marshal(stripTimes(t, output.JSON(r.Summary(trace, 0, 0, nil))))
		wj, _ := json.Marshal(wantSum)
		if !bytes.Equal(gj, wj) {
			t.Fatalf("%s: summary differs\n got %s\nwant %s", tc, gj, wj)
		}
		var st bytes.Buffer
		if err := r.WriteState(&st); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(st.Bytes(), wantState) {
			t.Fatalf("%s: final state differs", tc)
		}
	}
}

// TestDataFilesRefused: --n with a .npy file is refused (by the rule of
// Config.Validate for every parameter that does not apply).
func TestDataFilesRefused(t *testing.T) {
	cfg := testConfig(3000, 10)
	cfg.Data, cfg.N = writeAUCData(t, t.TempDir(), 3000), 3000
	if _, err := Prepare(mpi.Self(), cfg); err == nil || !strings.Contains(err.Error(), "Config.N: does not apply") {
		t.Errorf(".npy with --n: %v", err)
	}
}

// TestAlgorithmRefusalsSayWhy: a run over ranks of another algorithm or
// estimator is refused naming the flag and its own reason (the centralized
// algorithm and the unbiased baseline are not "the asynchronous one").
func TestAlgorithmRefusalsSayWhy(t *testing.T) {
	for _, c := range []struct{ algo, baseline, want, not string }{
		{"async", "gossip", "--algo sync): the asynchronous one is not distributed yet", "baseline"},
		{"centralized", "gossip", "the centralized one (Algorithm 1) has one state", "asynchronous"},
		{"sync", "unbiased", "--baseline gossip): the unbiased baseline draws x_J from the whole data set", "asynchronous"},
	} {
		cfg := testConfig(3000, 10)
		cfg.Algorithm, cfg.Baseline = c.algo, c.baseline
		_, err := Prepare(mpi.Self(), cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), c.not) {
			t.Errorf("--algo %s --baseline %s: %v", c.algo, c.baseline, err)
		}
	}
}
