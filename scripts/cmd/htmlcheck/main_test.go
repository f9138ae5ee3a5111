package main

import (
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The detector on boxes as the probe reports them: a legend beside its
// panels passes; a legend over a panel, two legends over each other, two
// entries over each other, small type, unmarked groups or too many lines
// fail, each with its own message.
func TestLegendFaults(t *testing.T) {
	panel := rect{X: 10, Y: 10, W: 600, H: 300}
	legend := rect{X: 620, Y: 10, W: 150, H: 60}
	entries := []rect{{X: 660, Y: 12, W: 80, H: 15}, {X: 660, Y: 30, W: 80, H: 15}}
	good := plotSeen{Alt: "good", Panels: []rect{panel}, Legends: []rect{legend}, LegendTexts: entries, Lines: []int{8}, LegendFont: 14.9}
	if f := legendFaults(good, 8); len(f) != 0 {
		t.Errorf("a legend beside its panel: %v", f)
	}
	// Touching (sharing an edge, or a sliver under a square px) is not
	// overlapping.
	touch := good
	touch.Legends = []rect{{X: 610, Y: 10, W: 150, H: 60}}
	if f := legendFaults(touch, 8); len(f) != 0 {
		t.Errorf("a legend touching its panel: %v", f)
	}
	for _, tc := range []struct {
		name string
		edit func(p *plotSeen)
		want string
	}{
		{"legend over the panel", func(p *plotSeen) { p.Legends = []rect{{X: 500, Y: 20, W: 150, H: 60}} }, "legend 1 overlaps panel 1"},
		{"legend over a legend", func(p *plotSeen) { p.Legends = append(p.Legends, rect{X: 700, Y: 50, W: 100, H: 40}) }, "legends 1 and 2 overlap"},
		{"entries over each other", func(p *plotSeen) { p.LegendTexts = []rect{entries[0], {X: 670, Y: 20, W: 80, H: 15}} }, "legend entries 1 and 2 overlap"},
		{"small type", func(p *plotSeen) { p.LegendFont = 8 }, "legend type 8.0 px, want 11 px or more"},
		{"unmarked", func(p *plotSeen) { p.Panels, p.Legends = nil, nil }, "0 panels and 0 legends marked"},
		{"crowded panel", func(p *plotSeen) { p.Lines = []int{4, 16} }, "panel 2 draws 16 lines, want at most 8"},
	} {
		p := good
		tc.edit(&p)
		f := legendFaults(p, 8)
		if len(f) != 1 || !strings.Contains(f[0], tc.want) {
			t.Errorf("%s: %v, want one fault %q", tc.name, f, tc.want)
		}
	}
	// Lines are only reported without a limit.
	crowded := good
	crowded.Lines = []int{24}
	if f := legendFaults(crowded, 0); len(f) != 0 {
		t.Errorf("lines without a limit: %v", f)
	}
}

// syntheticPlot is an SVG laid out as internal/plot draws one (a marked
// panel with a line, a marked legend with its entries), the legend at
// legendX in a figure 900 points wide, its type fontPt points.
func syntheticPlot(legendX, fontPt float64) string {
	return fmt.Sprintf(`<?xml version="1.0"?>
<svg width="900pt" height="300pt" viewBox="0 0 900 300" xmlns="http://www.w3.org/2000/svg">
<g transform="scale(1, -1) translate(0, -300)">
<path d="M0,0L900,0L900,300L0,300Z" style="fill:#FFFFFF" />
<g class="pb-panel">
<path d="M20,20L700,20L700,280L20,280Z" style="fill:#FFFFFF" />
<path d="M30,30L690,270" style="fill:none;stroke:#0072B2;stroke-width:2" />
</g>
<g class="pb-legend">
<path d="M%[1]g,270L%[3]g,270" style="fill:none;stroke:#0072B2;stroke-width:2" />
<text x="%[2]g" y="-266" transform="scale(1, -1)" style="font-family:Liberation Serif;font-size:%[4]gpx">futex</text>
<text x="%[2]g" y="-250" transform="scale(1, -1)" style="font-family:Liberation Serif;font-size:%[4]gpx">c-futex</text>
</g>
</g>
</svg>`, legendX, legendX+40, legendX+32, fontPt)
}

func syntheticPage(svgs ...string) []byte {
	var imgs strings.Builder
	for i, svg := range svgs {
		fmt.Fprintf(&imgs, `<figure><img src="data:image/svg+xml;base64,%s" alt="plot %d of synthetic.json"></figure>`,
			base64.StdEncoding.EncodeToString([]byte(svg)), i+1)
	}
	return []byte(`<!doctype html><html><head><meta charset="utf-8"><title>parkbench report: synthetic</title>
<style>body { margin: 0 auto; padding: 1.5rem 2rem; } img { width: 100%; height: auto; }</style></head>
<body><h1>synthetic</h1>` + imgs.String() + `<p>` + strings.Repeat("text ", 4000) + `</p></body></html>`)
}

// The check in a real browser on synthetic pages: legends right of their
// panels pass, and the summary gives the page's height and the legend's
// size as shown (11 pt in a 900 pt figure shown 1136 px wide: 13.9 px); a
// page whose first plot's legend lies over its panel and whose second's
// type is 7 pt fails on both. Skipped without Chromium
// (scripts/html-check.sh installs it).
func TestSyntheticPages(t *testing.T) {
	if testing.Short() {
		t.Skip("runs headless Chromium")
	}
	chromium := ""
	for _, b := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(b); err == nil {
			chromium = p
			break
		}
	}
	if chromium == "" {
		t.Skip("no Chromium here (scripts/html-check.sh installs it)")
	}
	dir := t.TempDir()
	check := func(name string, svgs ...string) (string, error) {
		page := filepath.Join(dir, name+".html")
		if err := os.WriteFile(page, syntheticPage(svgs...), 0o644); err != nil {
			t.Fatal(err)
		}
		return run(config{chromium: chromium, dir: filepath.Join(dir, name), page: page, width: 1280, maxLines: 8, noShot: true})
	}
	summary, err := check("good", syntheticPlot(720, 11), syntheticPlot(740, 12))
	if err != nil {
		t.Errorf("legends beside their panels: %v", err)
	}
	for _, want := range []string{"px tall at 1280 px wide", "2 plots, no legend over a panel or a legend", "lines per panel [1], legend 13.9 px"} {
		if !strings.Contains(summary, want) {
			t.Errorf("the summary lacks %q: %s", want, summary)
		}
	}
	_, err = check("bad", syntheticPlot(560, 11), syntheticPlot(720, 7))
	for _, want := range []string{`plot "plot 1 of synthetic.json": legend 1 overlaps panel 1`, `plot "plot 2 of synthetic.json": legend type 8.8 px, want 11 px or more`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("a legend over its panel and one in 7 pt: %v, want a failure %q", err, want)
		}
	}
	if err != nil && strings.Contains(err.Error(), "plot 2 of synthetic.json\": legend 1 overlaps") {
		t.Errorf("a legend beside its panel reported overlapping: %v", err)
	}
}

// The page's height fails only past -max-height.
func TestMaxHeight(t *testing.T) {
	s := seen{Height: 14089, ScrollWidth: 1280, InnerWidth: 1280}
	if f := layoutFaults(config{maxHeight: 15000}, s); len(f) != 0 {
		t.Errorf("14089 px against 15000: %v", f)
	}
	if f := layoutFaults(config{}, s); len(f) != 0 {
		t.Errorf("14089 px without a limit: %v", f)
	}
	s.Height = 17666
	if f := layoutFaults(config{maxHeight: 15000}, s); len(f) != 1 || !strings.Contains(f[0], "17666 px tall, want at most 15000") {
		t.Errorf("17666 px against 15000: %v", f)
	}
}
