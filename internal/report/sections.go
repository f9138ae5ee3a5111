package report

import (
	"fmt"
	"html/template"

	"github.com/parkbench/parkbench/internal/report/section"
	"github.com/parkbench/parkbench/internal/results"
)

// renderSections writes e's sections' tables (its registry entry's:
// internal/report/section) after its configuration table.
func renderSections(p *page, e *results.Experiment, ks keyShortener) {
	for _, s := range section.For(e.Name) {
		if s.Tables == nil {
			continue
		}
		for _, t := range s.Tables(e, ks.key) {
			p.blank()
			p.item(t.Intro)
			p.blank()
			p.table(t.Table)
		}
	}
}

// htmlSection is a section's table on the HTML page, with the section's
// stacked bars above it.
type htmlSection struct {
	// Title and BarNote are the section's own text (code, not data):
	// written as they are.
	Title   template.HTML
	Table   htmlTable
	Bars    []htmlBar
	Legend  []htmlBarPart
	BarNote template.HTML
}

// htmlBar is one configuration's stacked bar.
type htmlBar struct {
	Config, Label, Total string
	Parts                []htmlBarPart
	sum                  float64
}

type htmlBarPart struct {
	Name, Class, Title string
	Style              template.CSS
	ns                 float64
}

// htmlSections are e's sections on the HTML page: each table with an
// HTML title, the first with the section's bars.
func htmlSections(e *results.Experiment, ks keyShortener) []htmlSection {
	var out []htmlSection
	for _, s := range section.For(e.Name) {
		if s.Tables == nil {
			continue
		}
		first := true
		for _, t := range s.Tables(e, ks.key) {
			if t.HTMLTitle == "" {
				continue
			}
			hs := htmlSection{Title: template.HTML(t.HTMLTitle), Table: table(t.Table)}
			if first && s.Bars != nil {
				hs.BarNote = template.HTML(s.BarNote)
				for _, b := range s.Bars(e, ks.key) {
					hb := htmlBar{Config: b.Config, Label: b.Label, Total: b.Total}
					var legend []htmlBarPart
					for _, p := range b.Parts {
						hp := htmlBarPart{Name: p.Name, Class: "c-" + p.Name, Title: p.Title, ns: p.Value}
						legend = append(legend, hp)
						if p.Value > 0 {
							hb.Parts = append(hb.Parts, hp)
						}
						hb.sum += p.Value
					}
					if hs.Legend == nil {
						hs.Legend = legend
					}
					hs.Bars = append(hs.Bars, hb)
				}
			}
			first = false
			out = append(out, hs)
		}
	}
	return out
}

// scaleBars sets every bar's part widths on one scale: the largest sum of
// any bar of the experiment, over every file (machine), is the full width.
func scaleBars(files []htmlFile) {
	top := 0.0
	for _, f := range files {
		for _, s := range f.Sections {
			for _, b := range s.Bars {
				top = max(top, b.sum)
			}
		}
	}
	if top <= 0 {
		return
	}
	for _, f := range files {
		for _, s := range f.Sections {
			for i := range s.Bars {
				for j := range s.Bars[i].Parts {
					p := &s.Bars[i].Parts[j]
					p.Style = template.CSS(fmt.Sprintf("width: %.2f%%", 100*p.ns/top))
				}
			}
		}
	}
}
