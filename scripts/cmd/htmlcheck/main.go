// Command htmlcheck checks `parkbench report --format=html` in a real
// browser: it renders the page for result files, refuses anything the page
// would fetch (a script, a style sheet, an image or a font from elsewhere),
// then loads the page in headless Chromium and asserts on what the browser
// laid out: the title, the machines table with every file and machine
// class, the summary of every file, one section per experiment, every plot
// decoded and drawn wide, each claim's verdict, and a page no wider than
// the window (wide tables scroll inside their box). It keeps a screenshot.
//
//	go run ./scripts/cmd/htmlcheck -parkbench BIN -chromium PATH -out DIR FILE...
//
// scripts/html-check.sh builds parkbench, finds or installs Chromium and
// runs it on a recorded result and a fixture of another machine.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/parkbench/parkbench/internal/plot"
	"github.com/parkbench/parkbench/internal/results"
)

// probe runs in the browser after the page has loaded and writes what it
// sees into the DOM, which --dump-dom prints.
const probe = `<script>
window.addEventListener("load", function () {
  var text = function (sel) { var e = document.querySelector(sel); return e ? e.innerText : ""; };
  var imgs = Array.prototype.map.call(document.images, function (i) {
    var r = i.getBoundingClientRect();
    return { alt: i.alt, complete: i.complete, natural: i.naturalWidth, width: r.width, height: r.height };
  });
  var sections = Array.prototype.map.call(document.querySelectorAll("section.experiment h2"), function (h) { return h.innerText; });
  var parts = [];
  Array.prototype.forEach.call(document.querySelectorAll("section.experiment"), function (sec) {
    var h2 = sec.querySelector("h2");
    Array.prototype.forEach.call(sec.querySelectorAll(".file h3"), function (h) { parts.push([h2 ? h2.innerText : "", h.innerText]); });
  });
  var verdicts = Array.prototype.map.call(document.querySelectorAll("ul.claims .verdict"), function (v) {
    var r = v.getBoundingClientRect(); return { text: v.innerText, visible: r.width > 0 && r.height > 0 };
  });
  var bars = Array.prototype.map.call(document.querySelectorAll(".anatomy .bar"), function (b) {
    var r = b.getBoundingClientRect();
    var parts = Array.prototype.map.call(b.querySelectorAll("span"), function (s) { return s.getBoundingClientRect().width; });
    return { label: b.getAttribute("aria-label"), width: r.width, height: r.height, parts: parts };
  });
  var out = document.createElement("pre");
  out.id = "pb-check";
  out.textContent = JSON.stringify({
    title: document.title,
    machines: text("#machines"),
    summary: text("#summary"),
    sections: sections,
    parts: parts,
    images: imgs,
    verdicts: verdicts,
    bars: bars,
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth
  });
  document.body.appendChild(out);
});
</script>`

type seen struct {
	Title    string   `json:"title"`
	Machines string   `json:"machines"`
	Summary  string   `json:"summary"`
	Sections []string `json:"sections"`
	// Parts are each experiment section's per-file headings: [section, heading].
	Parts  [][2]string `json:"parts"`
	Images []struct {
		Alt      string  `json:"alt"`
		Complete bool    `json:"complete"`
		Natural  int     `json:"natural"`
		Width    float64 `json:"width"`
		Height   float64 `json:"height"`
	} `json:"images"`
	Verdicts []struct {
		Text    string `json:"text"`
		Visible bool   `json:"visible"`
	} `json:"verdicts"`
	// Bars are the anatomy's stacked bars (latency --anatomy): one per
	// configuration per machine, each with its drawn parts' widths.
	Bars []struct {
		Label  string    `json:"label"`
		Width  float64   `json:"width"`
		Height float64   `json:"height"`
		Parts  []float64 `json:"parts"`
	} `json:"bars"`
	ScrollWidth int `json:"scrollWidth"`
	InnerWidth  int `json:"innerWidth"`
}

// external is anything in the page that a browser would fetch.
var external = regexp.MustCompile(`(?i)(<(script|img|link|iframe|source|video|audio)[^>]*\s(src|href)\s*=\s*"(https?:|//|file:)|@import|url\(\s*['"]?(https?:|//)|<link\b)`)

func main() {
	pb := flag.String("parkbench", "", "the parkbench binary")
	chromium := flag.String("chromium", "chromium", "the browser")
	dir := flag.String("out", "", "directory for the page, the probe's page, the DOM dump and the screenshot")
	flag.Parse()
	files := flag.Args()
	if *pb == "" || *dir == "" || len(files) == 0 {
		fmt.Fprintln(os.Stderr, "usage: htmlcheck -parkbench BIN [-chromium PATH] -out DIR FILE...")
		os.Exit(2)
	}
	if err := run(*pb, *chromium, *dir, files); err != nil {
		fmt.Fprintln(os.Stderr, "htmlcheck:", err)
		os.Exit(1)
	}
}

func run(pb, chromium, dir string, files []string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	page, err := exec.Command(pb, append([]string{"report", "--format=html"}, files...)...).Output()
	if err != nil {
		return fmt.Errorf("parkbench report --format=html: %v", err)
	}
	pagePath := filepath.Join(dir, "report.html")
	if err := os.WriteFile(pagePath, page, 0o644); err != nil {
		return err
	}
	if m := external.Find(page); m != nil {
		return fmt.Errorf("%s is not self-contained: it would fetch %q", pagePath, m)
	}

	// What the page must show, from the files themselves.
	var names, slugs, exps, plotted []string
	anatomyConfigs := 0
	for _, p := range files {
		f, err := results.ReadFile(p)
		if err != nil {
			return err
		}
		names = append(names, filepath.Base(p))
		slugs = append(slugs, f.Machine.Slug)
		for _, e := range f.Experiments {
			for _, c := range e.Configs {
				if _, ok := c.Summary["anatomy_sum_median_ns"]; ok {
					anatomyConfigs++
				}
			}
			if !slices.Contains(exps, e.Name) {
				exps = append(exps, e.Name)
				// The first file holding an experiment decides
				// whether it has a plot (report draws them all in
				// one figure).
				if slices.Contains(plot.Experiments(f), e.Name) {
					plotted = append(plotted, e.Name)
				}
			}
		}
	}

	probed := bytes.Replace(page, []byte("</body>"), []byte(probe+"\n</body>"), 1)
	probePath := filepath.Join(dir, "probe.html")
	if err := os.WriteFile(probePath, probed, 0o644); err != nil {
		return err
	}
	profile, err := os.MkdirTemp("", "htmlcheck-chromium-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(profile)
	browser := func(args ...string) ([]byte, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
			"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir=" + profile,
			"--hide-scrollbars", "--window-size=1400,1000", "--virtual-time-budget=10000"}
		cmd := exec.CommandContext(ctx, chromium, append(base, args...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("%s %s: %v\n%s", chromium, strings.Join(args, " "), err, lastLines(stderr.String(), 5))
		}
		return out, nil
	}
	dom, err := browser("--dump-dom", "file://"+probePath)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "dom.html"), dom, 0o644); err != nil {
		return err
	}
	m := regexp.MustCompile(`(?s)<pre id="pb-check">(.*?)</pre>`).FindSubmatch(dom)
	if m == nil {
		return fmt.Errorf("the browser's DOM has no probe result (the page did not finish loading?); see %s", filepath.Join(dir, "dom.html"))
	}
	var s seen
	if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &s); err != nil {
		return fmt.Errorf("probe result: %v", err)
	}

	var fails []string
	fail := func(format string, a ...any) { fails = append(fails, fmt.Sprintf(format, a...)) }
	if !strings.HasPrefix(s.Title, "parkbench report") {
		fail("title %q", s.Title)
	}
	for i, n := range names {
		if !strings.Contains(s.Machines, n) || !strings.Contains(s.Machines, slugs[i]) {
			fail("the machines table does not show %s (%s)", n, slugs[i])
		}
		if !strings.Contains(s.Summary, n) {
			fail("the summary does not show %s", n)
		}
	}
	if !strings.Contains(s.Summary, "claims:") {
		fail("the summary shows no claims tally: %.200q", s.Summary)
	}
	if !slices.Equal(s.Sections, exps) {
		fail("experiment sections %v, want %v", s.Sections, exps)
	}
	// Each file's part of a section is headed by the experiment and the
	// machine ("latency on linux-amd64-..."), not by a file name.
	if len(s.Parts) == 0 {
		fail("no experiment section has a part per file")
	}
	for _, p := range s.Parts {
		if !strings.HasPrefix(p[1], p[0]+" on ") || !slices.ContainsFunc(slugs, func(sl string) bool { return strings.HasSuffix(p[1], " on "+sl) }) {
			fail("section %s: a part headed %q, want %q and the machine", p[0], p[1], p[0]+" on ")
		}
	}
	if len(s.Images) != len(plotted) {
		fail("%d plots drawn, want %d (%v)", len(s.Images), len(plotted), plotted)
	}
	for _, im := range s.Images {
		if !im.Complete || im.Natural == 0 || im.Width < 600 || im.Height < 150 {
			fail("plot %q not drawn: decoded %v, natural width %d, shown %.0fx%.0f px", im.Alt, im.Complete, im.Natural, im.Width, im.Height)
		}
	}
	if len(s.Verdicts) == 0 {
		fail("no claim verdicts shown")
	}
	for _, v := range s.Verdicts {
		// A verdict decided within its rounds' spread says so
		// (results.Claim.VerdictText): "HOLDS, NEAR ITS LIMIT".
		text := strings.TrimSuffix(v.Text, ", NEAR ITS LIMIT")
		if !v.Visible || (text != "HOLDS" && text != "DOES NOT HOLD" && text != "NOT EVALUATED") {
			fail("verdict %q (visible %v)", v.Text, v.Visible)
		}
	}
	if len(s.Bars) != anatomyConfigs {
		fail("%d anatomy bars drawn, want one per configuration with an anatomy: %d", len(s.Bars), anatomyConfigs)
	}
	for _, b := range s.Bars {
		sum := 0.0
		for _, w := range b.Parts {
			sum += w
		}
		if b.Width < 100 || b.Height < 5 || len(b.Parts) == 0 || sum < 10 || sum > b.Width+1 {
			fail("anatomy bar %q not drawn: %.0fx%.0f px, parts %v", b.Label, b.Width, b.Height, b.Parts)
		}
	}
	if s.ScrollWidth > s.InnerWidth {
		fail("the page is %d px wide in a %d px window: something does not scroll in its box", s.ScrollWidth, s.InnerWidth)
	}

	shot := filepath.Join(dir, "report.png")
	if _, err := browser("--window-size=1400,2400", "--screenshot="+shot, "file://"+pagePath); err != nil {
		return err
	}
	if st, err := os.Stat(shot); err != nil || st.Size() < 10000 {
		fail("screenshot %s missing or empty", shot)
	}
	if len(fails) > 0 {
		return fmt.Errorf("%s, as the browser shows it:\n  %s", pagePath, strings.Join(fails, "\n  "))
	}
	fmt.Printf("htmlcheck: %s: %d files, machines %s, %d experiment sections, %d plots drawn (%s), %d verdicts, %d anatomy bars, %d px wide in %d; screenshot %s\n",
		pagePath, len(names), strings.Join(slugs, ", "), len(s.Sections), len(s.Images), strings.Join(plotted, ", "), len(s.Verdicts), len(s.Bars), s.ScrollWidth, s.InnerWidth, shot)
	return nil
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}
