package figure

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"time"
)

// ErrNoBrowser is returned by CheckPage when no headless Chromium is
// installed (Debian: apt-get install chromium).
var ErrNoBrowser = errors.New("no chromium on PATH (apt-get install chromium)")

// Browser returns the path of a Chromium, or ErrNoBrowser.
func Browser() (string, error) {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", ErrNoBrowser
}

var dataImg = regexp.MustCompile(`<img [^>]*src="data:image/png;base64,`)

// CheckPage renders the HTML page at path in headless Chromium and checks
// that its figures are there: the DOM the browser builds holds at least
// minFigures embedded PNG images, and a screenshot of the page's top
// (1280 × 3000 pixels, written to shot) shows the figures' curves — at
// least 400 pixels of the figures' first colour (Okabe–Ito blue), which
// nothing on the pages but a figure draws.
func CheckPage(path string, minFigures int, shot string) error {
	bin, err := Browser()
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	url := "file://" + abs
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	common := []string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--user-data-dir=" + filepath.Join(filepath.Dir(shot), ".chromium-profile")}
	dom, err := exec.CommandContext(ctx, bin, append(common, "--dump-dom", url)...).Output()
	if err != nil {
		return fmt.Errorf("chromium --dump-dom %s: %w", path, err)
	}
	if n := len(dataImg.FindAll(dom, -1)); n < minFigures {
		return fmt.Errorf("%s: the browser's DOM holds %d embedded figures, want at least %d", path, n, minFigures)
	}
	out, err := exec.CommandContext(ctx, bin, append(common, "--screenshot="+shot, "--window-size=1280,3000", url)...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("chromium --screenshot %s: %w\n%s", path, err, out)
	}
	b, err := os.ReadFile(shot)
	if err != nil {
		return fmt.Errorf("chromium wrote no screenshot of %s: %w", path, err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("screenshot of %s: %w", path, err)
	}
	blue, bounds := 0, img.Bounds()
	near := func(a uint32, b uint8) bool { d := int(a>>8) - int(b); return d >= -12 && d <= 12 }
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if near(r, Blue.R) && near(g, Blue.G) && near(bl, Blue.B) {
				blue++
			}
		}
	}
	if blue < 400 {
		return fmt.Errorf("screenshot %s of %s: %d pixels of the figures' curves, want at least 400 (the figures did not render)", shot, path, blue)
	}
	return nil
}
