package report

import (
	"bytes"
	"encoding/base64"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/results/resultstest"
)

// TestHTML renders several files into one page: self-contained (nothing
// to fetch), the machines side by side, every file's summary, a section
// and a plot per drawable experiment, the claims with their verdicts, and
// text from a result file escaped.
func TestHTML(t *testing.T) {
	files := fixtures(t)
	other := resultstest.Spec{Machine: resultstest.Machine("AMD EPYC 7763 64-Core Processor", 4), Seed: 4, Samples: 200}
	f := resultstest.Suite(other)
	f.Experiments[0].Notes = []string{`<script>alert("x")</script>`}
	files = append(files, Named{"other.json", f})
	var buf bytes.Buffer
	if err := RenderFiles(&buf, files, "html", Options{}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if regexp.MustCompile(`(?i)(src|href)\s*=\s*"(https?:|//)|<link|@import`).MatchString(page) {
		t.Errorf("the page would fetch something")
	}
	if strings.Contains(page, `<script>alert`) || !strings.Contains(page, `&lt;script&gt;alert`) {
		t.Errorf("a result file's text reached the page unescaped")
	}
	for _, n := range files {
		for _, want := range []string{n.File.Machine.Slug, ">" + baseName(n.Name) + "<"} {
			if !strings.Contains(page, want) {
				t.Errorf("the page lacks %q", want)
			}
		}
	}
	// Each file's part of an experiment is headed by the experiment and
	// its machine, not by the file's name.
	for _, n := range files {
		for _, e := range n.File.Experiments {
			if want := "<h3>" + e.Name + " on " + n.File.Machine.Slug + "</h3>"; !strings.Contains(page, want) {
				t.Errorf("the page lacks the heading %q", want)
			}
		}
		if strings.Contains(page, "<h3>"+baseName(n.Name)+"</h3>") {
			t.Errorf("a part is headed by the file name %q", baseName(n.Name))
		}
	}
	for _, want := range []string{`id="machines"`, `id="summary"`, `id="exp-latency"`, `id="exp-herd"`, `id="exp-timeout"`, "AMD EPYC 7763", "claims:", `class="verdict">HOLDS<`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	imgs := regexp.MustCompile(`<img src="data:image/svg\+xml;base64,([^"]+)"`).FindAllStringSubmatch(html.UnescapeString(page), -1)
	if len(imgs) != 3 { // latency, herd, timeout
		t.Errorf("%d plots, want 3", len(imgs))
	}
	for _, m := range imgs {
		svg, err := base64.StdEncoding.DecodeString(m[1])
		if err != nil || !bytes.Contains(svg, []byte("<svg")) {
			t.Errorf("a plot is not an SVG: %v", err)
		}
	}
}

func baseName(p string) string { return p[strings.LastIndexAny(p, `/\`)+1:] }
