package main

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/pairgossip/pairgossip/internal/figure"
)

// requireBrowser skips a test when Chromium is not installed, unless
// PAIRGOSSIP_REQUIRE_BROWSER is set (CI installs Debian's chromium and sets
// it, so that the pages are checked there).
func requireBrowser(t *testing.T) {
	t.Helper()
	if _, err := figure.Browser(); errors.Is(err, figure.ErrNoBrowser) {
		if os.Getenv("PAIRGOSSIP_REQUIRE_BROWSER") != "" {
			t.Fatal("PAIRGOSSIP_REQUIRE_BROWSER is set but there is no chromium on PATH")
		}
		t.Skip("headless Chromium not installed (apt-get install chromium): the plot and report pages are rendered in CI")
	}
}

// TestPagesRenderInChromium: the page of pairgossip plot and the report of
// pairgossip reproduce (its quick plan), opened in headless Chromium, hold
// their figures, and a screenshot shows them drawn.
func TestPagesRenderInChromium(t *testing.T) {
	requireBrowser(t)
	if testing.Short() {
		t.Skip("starts a browser; not in -short")
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	for i, seed := range []string{"1", "2"} {
		if code, _, errOut := runCLI("run", "--iters", "300", "--log-points", "8", "--seed", seed, "--out", filepath.Join(dir, []string{"a", "b"}[i])); code != 0 {
			t.Fatalf("run: %s", errOut)
		}
	}
	if code, _, errOut := runCLI("plot", filepath.Join(dir, "a"), filepath.Join(dir, "b"), "--out", filepath.Join(dir, "p"), "--html"); code != 0 {
		t.Fatalf("plot: %s", errOut)
	}
	if err := figure.CheckPage(filepath.Join(dir, "p", "plot.html"), 5, filepath.Join(dir, "plot.png")); err != nil {
		t.Fatal(err)
	}
	page := os.Getenv("PAIRGOSSIP_REPORT_PAGE") // CI: the report of its reproduce --quick
	if page == "" {
		if code, _, errOut := runCLI("reproduce", "--quick", "--runs", "1", "--out", filepath.Join(dir, "report")); code != 0 {
			t.Fatalf("reproduce --quick: %s", errOut)
		}
		page = filepath.Join(dir, "report", "report.html")
	}
	if err := figure.CheckPage(page, 8, filepath.Join(dir, "report.png")); err != nil {
		t.Fatal(err)
	}
}
