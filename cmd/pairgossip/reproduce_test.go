package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReproduceQuick runs the command CI runs (with one run per setting to
// keep the test short) and checks the exit status and the outputs.
func TestReproduceQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("the quick reproduction takes tens of seconds")
	}
	dir := filepath.Join(t.TempDir(), "report")
	var stdout, stderr bytes.Buffer
	code := realMain([]string{"reproduce", "--quick", "--runs", "1", "--out", dir, "--json"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr is not a terminal, yet the command wrote to it:\n%s", stderr.String())
	}
	var sum struct {
		Report, Results string
		Mode            string
		Runs            int
		Claims          []struct{ ID, Verdict string }
	}
	if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil {
		t.Fatalf("--json output: %v\n%s", err, stdout.String())
	}
	if sum.Mode != "quick" || sum.Runs != 1 || len(sum.Claims) == 0 {
		t.Errorf("summary = %+v", sum)
	}
	for _, f := range []string{sum.Report, sum.Results, filepath.Join(dir, "figures", "fig1a.png"), filepath.Join(dir, "figures", "fig1a.svg"), filepath.Join(dir, "table1.csv")} {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestReproduceFlags(t *testing.T) {
	for _, args := range [][]string{{"reproduce", "--runs", "-1"}, {"reproduce", "--bogus"}, {"reproduce", "extra"}, {"reproduce", "--out", ""}, {"reproduce", "--quick", "--long"}} {
		var stdout, stderr bytes.Buffer
		if code := realMain(args, &stdout, &stderr); code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", args, code, stderr.String())
		}
	}
	var stdout, stderr bytes.Buffer
	if code := realMain([]string{"help", "reproduce"}, &stdout, &stderr); code != 0 || !strings.Contains(stderr.String(), "--quick") {
		t.Errorf("help reproduce: exit %d, output %q", code, stderr.String())
	}
}

// TestReproduceNetworks: reproduce --networks --quick writes the networks
// page and its JSON (one run per setting), and refuses --long.
func TestReproduceNetworks(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "report")
	var stdout, stderr bytes.Buffer
	if code := realMain([]string{"reproduce", "--networks", "--quick", "--runs", "1", "--out", dir, "--json"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	var sum struct {
		Report, Results, Mode string
		Runs, Settings        int
	}
	if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil || sum.Mode != "quick" || sum.Runs != 1 || sum.Settings != 16 {
		t.Fatalf("%v: %+v", err, sum)
	}
	for _, f := range []string{sum.Report, sum.Results, filepath.Join(dir, "figures", "networks-async-other.png")} {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "report.html")); err == nil {
		t.Error("--networks ran the paper's experiments too")
	}
	if code := realMain([]string{"reproduce", "--networks", "--long"}, &stdout, &stderr); code != 2 {
		t.Errorf("--networks --long: exit %d", code)
	}
}
