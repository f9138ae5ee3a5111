package report

import (
	"bytes"
	"encoding/base64"
	"html"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/anatomy"
	"github.com/parkbench/parkbench/internal/results"
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
	files = append(files, results.Named{Name: "other.json", File: f})
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
	if len(imgs) != 4 { // latency, selfwake (a dot chart), herd, timeout
		t.Errorf("%d plots, want 4", len(imgs))
	}
	for _, m := range imgs {
		svg, err := base64.StdEncoding.DecodeString(m[1])
		if err != nil || !bytes.Contains(svg, []byte("<svg")) {
			t.Errorf("a plot is not an SVG: %v", err)
		}
		// Drawn for the page: its legend and panels marked for the
		// browser's check (scripts/cmd/htmlcheck).
		if !bytes.Contains(svg, []byte(`<g class="pb-legend">`)) || !bytes.Contains(svg, []byte(`<g class="pb-panel">`)) {
			t.Errorf("a plot without its legend and panels marked")
		}
	}
}

// A table of more than tallRows rows scrolls in a box of its own (its
// header kept in view); a shorter one is shown whole.
func TestHTMLTallTables(t *testing.T) {
	rows := func(n int) htmlTable { return htmlTable{Header: []string{"a"}, Rows: make([][]string, n)} }
	if rows(tallRows).Tall() || !rows(tallRows+1).Tall() {
		t.Errorf("tall at %d rows %v, at %d %v", tallRows, rows(tallRows).Tall(), tallRows+1, rows(tallRows+1).Tall())
	}
	var buf bytes.Buffer
	if err := RenderFiles(&buf, fixtures(t), "html", Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `<div class="scroll tall"><table>`) || !strings.Contains(buf.String(), ".scroll.tall th { position: sticky") {
		t.Errorf("no table scrolls in its box")
	}
}

func baseName(p string) string { return p[strings.LastIndexAny(p, `/\`)+1:] }

// TestHTMLAnatomyBars: a latency --anatomy result on two machines gets one
// stacked bar per configuration per machine, on one scale (the largest sum
// is the full width), and its anatomy table.
func TestHTMLAnatomyBars(t *testing.T) {
	read := func() *results.File {
		f, err := results.ReadFile(filepath.Join("..", "compare", "testdata", "anatomy-amd-f25m17.json"))
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	a, b := read(), read()
	b.Machine.CPUModel, b.Machine.CPUFamily, b.Machine.CPUModelNumber = "Intel Xeon", 6, 167
	b.Machine.Slug = results.Slug(b.Machine)
	for _, c := range b.Experiments[0].Configs {
		c.Summary[anatomy.MedianKey(anatomy.IdleExit)] /= 4
	}
	var buf bytes.Buffer
	if err := RenderFiles(&buf, []results.Named{{Name: "a.json", File: a}, {Name: "b.json", File: b}}, "html", Options{}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	bars := regexp.MustCompile(`<div class="bar" role="img" aria-label="([^"]*)">(.*?)</div>`).FindAllStringSubmatch(page, -1)
	if len(bars) != 6 {
		t.Fatalf("%d bars, want 3 configurations x 2 machines", len(bars))
	}
	widths := regexp.MustCompile(`width: ([0-9.]+)%`)
	full := 0
	for _, m := range bars {
		sum := 0.0
		for _, w := range widths.FindAllStringSubmatch(m[2], -1) {
			v, _ := strconv.ParseFloat(w[1], 64)
			sum += v
		}
		if sum > 100.01 || sum < 20 {
			t.Errorf("bar %q spans %.2f%% of the width", m[1], sum)
		}
		if sum > 99.9 {
			full++
		}
		if !strings.Contains(m[1], "idle_exit") {
			t.Errorf("bar label %q does not name the components", m[1])
		}
	}
	if full != 1 {
		t.Errorf("%d bars at full width, want 1 (one scale for both machines: the largest sum)", full)
	}
	if !strings.Contains(page, "Where a wake") || strings.Count(page, "<th>idle_exit</th>") != 2 {
		t.Errorf("the page lacks the anatomy heading or a table per machine")
	}
}
