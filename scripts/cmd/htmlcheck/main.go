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
	"strconv"
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
  // Each plot's SVG, laid out again at the size the page shows it (a
  // hidden copy at the image's place: an <img>'s insides are not in the
  // DOM), measured by the browser: its marked panels and legends
  // (internal/plot figure.go), the legend's type and the panels' lines.
  var box = function (e) { var r = e.getBoundingClientRect(); return { x: r.left, y: r.top, w: r.width, h: r.height }; };
  var plots = [];
  Array.prototype.forEach.call(document.images, function (img) {
    var src = img.getAttribute("src") || "";
    var m = /^data:image\/svg\+xml;base64,(.*)$/.exec(src);
    if (!m) { return; }
    var doc = new DOMParser().parseFromString(atob(m[1]), "image/svg+xml");
    var svg = doc.documentElement;
    var shown = img.getBoundingClientRect();
    var vb = (svg.getAttribute("viewBox") || "").split(/[ ,]+/).map(Number);
    var holder = document.createElement("div");
    holder.style.cssText = "position:absolute;visibility:hidden;left:0;top:0;width:" + shown.width + "px;height:" + shown.height + "px";
    svg.setAttribute("width", shown.width);
    svg.setAttribute("height", shown.height);
    holder.appendChild(document.importNode(svg, true));
    document.body.appendChild(holder);
    var placed = holder.firstChild;
    var scale = vb.length == 4 && vb[2] > 0 ? shown.width / vb[2] : 0;
    var p = { alt: img.alt, viewWidth: vb[2] || 0, shownWidth: shown.width, shownHeight: shown.height, panels: [], legends: [], legendTexts: [], lines: [], legendFont: 0, smallestFont: 0 };
    var font = function (t) { return parseFloat(getComputedStyle(t).fontSize) * scale; };
    Array.prototype.forEach.call(placed.querySelectorAll("text"), function (t) {
      var f = font(t); if (!p.smallestFont || f < p.smallestFont) { p.smallestFont = f; }
    });
    Array.prototype.forEach.call(placed.querySelectorAll("g.pb-panel"), function (g) {
      p.panels.push(box(g));
      var styles = {};
      Array.prototype.forEach.call(g.querySelectorAll("path"), function (path) {
        var st = path.getAttribute("style") || "";
        var w = /stroke-width:([0-9.]+)/.exec(st), c = /stroke:(#[0-9A-Fa-f]+)/.exec(st), d = /stroke-dasharray:([^;]+)/.exec(st);
        if (w && c && parseFloat(w[1]) >= 2) { styles[c[1] + "/" + (d ? d[1] : "")] = true; }
      });
      p.lines.push(Object.keys(styles).length);
    });
    Array.prototype.forEach.call(placed.querySelectorAll("g.pb-legend"), function (g) {
      p.legends.push(box(g));
      Array.prototype.forEach.call(g.querySelectorAll("text"), function (t) {
        if (!t.textContent.trim()) { return; }
        p.legendTexts.push(box(t));
        var f = font(t); if (!p.legendFont || f < p.legendFont) { p.legendFont = f; }
      });
    });
    document.body.removeChild(holder);
    plots.push(p);
  });
  var out = document.createElement("pre");
  out.id = "pb-check";
  out.textContent = JSON.stringify({
    height: document.documentElement.scrollHeight,
    plots: plots,
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
	// Height is the page's height in the window (scrollHeight, px).
	Height int        `json:"height"`
	Plots  []plotSeen `json:"plots"`
}

// rect is a box on the page, in CSS px.
type rect struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
	W float64 `json:"w"`
	H float64 `json:"h"`
}

// overlap is the area two boxes share.
func (a rect) overlap(b rect) float64 {
	w := min(a.X+a.W, b.X+b.W) - max(a.X, b.X)
	h := min(a.Y+a.H, b.Y+b.H) - max(a.Y, b.Y)
	if w <= 0 || h <= 0 {
		return 0
	}
	return w * h
}

// plotSeen is a plot as the browser lays it out at the page's size: its
// panels' and legends' boxes (internal/plot marks their SVG groups), each
// legend entry's text box, the data lines per panel and the type sizes.
type plotSeen struct {
	Alt         string  `json:"alt"`
	ViewWidth   float64 `json:"viewWidth"`
	ShownWidth  float64 `json:"shownWidth"`
	ShownHeight float64 `json:"shownHeight"`
	Panels      []rect  `json:"panels"`
	Legends     []rect  `json:"legends"`
	LegendTexts []rect  `json:"legendTexts"`
	Lines       []int   `json:"lines"`
	LegendFont  float64 `json:"legendFont"`
	SmallFont   float64 `json:"smallestFont"`
}

// minLegendFont is the smallest legend type a plot may show (px).
const minLegendFont = 11

// touching is the overlap, in square px, below which two boxes are taken
// to touch, not overlap (anti-aliasing, a glyph's side bearing).
const touching = 1.0

// legendFaults are what is wrong with a plot's legends: a legend over a
// panel or another legend, two entries over each other, type smaller than
// minLegendFont, no marked legend or panel (a figure the check cannot see
// into), and, when maxLines > 0, a panel with more lines.
func legendFaults(p plotSeen, maxLines int) []string {
	var out []string
	if len(p.Panels) == 0 || len(p.Legends) == 0 {
		return append(out, fmt.Sprintf("%d panels and %d legends marked (internal/plot marks them: g.pb-panel, g.pb-legend)", len(p.Panels), len(p.Legends)))
	}
	for i, l := range p.Legends {
		for j, pn := range p.Panels {
			if a := l.overlap(pn); a > touching {
				out = append(out, fmt.Sprintf("legend %d overlaps panel %d by %.0f px² (legend %s, panel %s)", i+1, j+1, a, l, pn))
			}
		}
		for j := i + 1; j < len(p.Legends); j++ {
			if a := l.overlap(p.Legends[j]); a > touching {
				out = append(out, fmt.Sprintf("legends %d and %d overlap by %.0f px²", i+1, j+1, a))
			}
		}
	}
	for i, a := range p.LegendTexts {
		for j := i + 1; j < len(p.LegendTexts); j++ {
			if o := a.overlap(p.LegendTexts[j]); o > touching {
				out = append(out, fmt.Sprintf("legend entries %d and %d overlap by %.0f px²", i+1, j+1, o))
			}
		}
	}
	if p.LegendFont < minLegendFont {
		out = append(out, fmt.Sprintf("legend type %.1f px, want %d px or more", p.LegendFont, minLegendFont))
	}
	for i, n := range p.Lines {
		if maxLines > 0 && n > maxLines {
			out = append(out, fmt.Sprintf("panel %d draws %d lines, want at most %d", i+1, n, maxLines))
		}
	}
	return out
}

func (r rect) String() string { return fmt.Sprintf("%.0fx%.0f at %.0f,%.0f", r.W, r.H, r.X, r.Y) }

// external is anything in the page that a browser would fetch.
var external = regexp.MustCompile(`(?i)(<(script|img|link|iframe|source|video|audio)[^>]*\s(src|href)\s*=\s*"(https?:|//|file:)|@import|url\(\s*['"]?(https?:|//)|<link\b)`)

// config is what a check is asked: the page (rendered by parkbench from
// files, or given), the window's width, and the limits.
type config struct {
	parkbench, chromium, dir string
	// files are the result files rendered; with page set, none: the page
	// as it is, checked for its layout only.
	files []string
	page  string
	// width is the window's width (px); maxHeight and maxLines fail a
	// taller page and a panel with more lines (0: reported only).
	width, maxHeight, maxLines int
	// noShot skips the screenshot (the tests: a browser start each).
	noShot bool
}

func main() {
	var c config
	flag.StringVar(&c.parkbench, "parkbench", "", "the parkbench binary (renders the page from FILEs)")
	flag.StringVar(&c.chromium, "chromium", "chromium", "the browser")
	flag.StringVar(&c.dir, "out", "", "directory for the page, the probe's page, the DOM dump and the screenshot")
	flag.StringVar(&c.page, "page", "", "check this HTML page as it is (its layout: height, plots, legends) instead of rendering FILEs")
	flag.IntVar(&c.width, "width", 1280, "the browser window's width in px")
	flag.IntVar(&c.maxHeight, "max-height", 0, "fail when the page is taller, in px (0: report the height only)")
	flag.IntVar(&c.maxLines, "max-lines", 0, "fail when a plot's panel draws more lines (0: report them only)")
	flag.Parse()
	c.files = flag.Args()
	if c.dir == "" || (c.page == "") == (len(c.files) == 0) || (c.page == "" && c.parkbench == "") || c.width < 320 {
		fmt.Fprintln(os.Stderr, "usage: htmlcheck -parkbench BIN [-chromium PATH] [-width PX] [-max-height PX] [-max-lines N] -out DIR FILE...\n"+
			"       htmlcheck -page PAGE.html [-chromium PATH] [-width PX] [-max-height PX] [-max-lines N] -out DIR")
		os.Exit(2)
	}
	summary, err := run(c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "htmlcheck:", err)
		os.Exit(1)
	}
	fmt.Println(summary)
}

// run checks the page and returns its summary line, or an error listing
// every fault found.
func run(c config) (string, error) {
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return "", err
	}
	var page []byte
	var err error
	if c.page != "" {
		page, err = os.ReadFile(c.page)
	} else {
		page, err = exec.Command(c.parkbench, append([]string{"report", "--format=html"}, c.files...)...).Output()
		if err != nil {
			err = fmt.Errorf("parkbench report --format=html: %v", err)
		}
	}
	if err != nil {
		return "", err
	}
	pagePath := filepath.Join(c.dir, "report.html")
	if err := os.WriteFile(pagePath, page, 0o644); err != nil {
		return "", err
	}
	if m := external.Find(page); m != nil {
		return "", fmt.Errorf("%s is not self-contained: it would fetch %q", pagePath, m)
	}
	s, err := probePage(c, page)
	if err != nil {
		return "", err
	}
	var fails []string
	if len(c.files) > 0 {
		if fails, err = contentFaults(c.files, s); err != nil {
			return "", err
		}
	}
	fails = append(fails, layoutFaults(c, s)...)

	shot := filepath.Join(c.dir, "report.png")
	if c.noShot {
		shot = "not taken"
	} else {
		if _, err := browser(c, "--window-size="+strconv.Itoa(c.width)+",2400", "--screenshot="+shot, "file://"+absPath(pagePath)); err != nil {
			return "", err
		}
		if st, err := os.Stat(shot); err != nil || st.Size() < 10000 {
			fails = append(fails, fmt.Sprintf("screenshot %s missing or empty", shot))
		}
	}
	if len(fails) > 0 {
		return "", fmt.Errorf("%s, as the browser shows it %d px wide:\n  %s", pagePath, c.width, strings.Join(fails, "\n  "))
	}
	var plots []string
	for _, p := range s.Plots {
		name, _, _ := strings.Cut(p.Alt, " plot of ")
		plots = append(plots, fmt.Sprintf("%s: %.0fx%.0f px, lines per panel %v, legend %.1f px, smallest type %.1f px",
			name, p.ShownWidth, p.ShownHeight, p.Lines, p.LegendFont, p.SmallFont))
	}
	return fmt.Sprintf("htmlcheck: %s: %d px tall at %d px wide, %d px wide in %d; %d experiment sections, %d verdicts, %d anatomy bars; %d plots, no legend over a panel or a legend:\n  %s\nscreenshot %s",
		pagePath, s.Height, c.width, s.ScrollWidth, s.InnerWidth, len(s.Sections), len(s.Verdicts), len(s.Bars), len(s.Plots), strings.Join(plots, "\n  "), shot), nil
}

// layoutFaults are the page's faults of layout: wider than the window,
// taller than maxHeight, a plot's legend faults.
func layoutFaults(c config, s seen) []string {
	var fails []string
	if s.ScrollWidth > s.InnerWidth {
		fails = append(fails, fmt.Sprintf("the page is %d px wide in a %d px window: something does not scroll in its box", s.ScrollWidth, s.InnerWidth))
	}
	if c.maxHeight > 0 && s.Height > c.maxHeight {
		fails = append(fails, fmt.Sprintf("the page is %d px tall, want at most %d", s.Height, c.maxHeight))
	}
	for _, p := range s.Plots {
		for _, f := range legendFaults(p, c.maxLines) {
			fails = append(fails, fmt.Sprintf("plot %q: %s", p.Alt, f))
		}
	}
	return fails
}

// probePage loads the page with the probe in the browser and returns what
// the probe saw.
func probePage(c config, page []byte) (seen, error) {
	var s seen
	probed := bytes.Replace(page, []byte("</body>"), []byte(probe+"\n</body>"), 1)
	probePath := filepath.Join(c.dir, "probe.html")
	if err := os.WriteFile(probePath, probed, 0o644); err != nil {
		return s, err
	}
	dom, err := browser(c, "--dump-dom", "file://"+absPath(probePath))
	if err != nil {
		return s, err
	}
	if err := os.WriteFile(filepath.Join(c.dir, "dom.html"), dom, 0o644); err != nil {
		return s, err
	}
	m := regexp.MustCompile(`(?s)<pre id="pb-check">(.*?)</pre>`).FindSubmatch(dom)
	if m == nil {
		return s, fmt.Errorf("the browser's DOM has no probe result (the page did not finish loading?); see %s", filepath.Join(c.dir, "dom.html"))
	}
	if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &s); err != nil {
		return s, fmt.Errorf("probe result: %v", err)
	}
	return s, nil
}

// browser runs headless Chromium with a fresh profile in a window
// c.width px wide.
func browser(c config, args ...string) ([]byte, error) {
	profile, err := os.MkdirTemp("", "htmlcheck-chromium-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(profile)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir=" + profile,
		"--hide-scrollbars", "--window-size=" + strconv.Itoa(c.width) + ",1000", "--virtual-time-budget=10000"}
	cmd := exec.CommandContext(ctx, c.chromium, append(base, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %v\n%s", c.chromium, strings.Join(args, " "), err, lastLines(stderr.String(), 5))
	}
	return out, nil
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// contentFaults are what the page, as the browser shows it, lacks of the
// files: their machines, summaries, experiments, plots, verdicts and
// anatomy bars.
func contentFaults(files []string, s seen) ([]string, error) {
	// What the page must show, from the files themselves.
	var names, slugs, exps, plotted []string
	anatomyConfigs := 0
	for _, p := range files {
		f, err := results.ReadFile(p)
		if err != nil {
			return nil, err
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
	return fails, nil
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}
