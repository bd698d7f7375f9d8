package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestScreenshots writes a PNG of each route of this package's pages to
// $WORKBENCH_SCREENSHOTS (make screenshots sets docs/screenshots); without
// it the test is skipped, so ordinary runs leave the tree alone.
func TestScreenshots(t *testing.T) {
	dir := os.Getenv("WORKBENCH_SCREENSHOTS")
	if dir == "" {
		t.Skip("set WORKBENCH_SCREENSHOTS (make screenshots) to write them")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s := newSession(t)
	// Some content: a checked key and an imported bundle.
	s.open("/import")
	s.upload("#import-files", fixturePath("valid-skill-bundle.v0.json"), fixturePath("invalid-missing-content-hash.v0.json"))
	s.waitVisible("#import-results li:nth-child(2)")
	shot(t, s, dir, "import")
	s.open("/")
	s.typeInto("#key", s.OR.Key)
	s.click("#key-check")
	s.waitVisible("#key-label")
	shot(t, s, dir, "home")
	s.open("/skills")
	s.waitVisible("#skills-table")
	s.waitText("#skills-table .skill-verified", "")
	shot(t, s, dir, "skills")
}

func shot(t *testing.T, s *session, dir, name string) {
	t.Helper()
	png := run(s, chromedp.FullScreenshot(100))
	p := filepath.Join(dir, strings.ReplaceAll(name, "/", "-")+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", p)
}
