// Package section is what an experiment adds to its pages beyond the
// table of its configurations: tables of its own (the text, markdown and
// HTML page), stacked bars (the HTML page) and the named parts of a
// configuration's figure that compare says moved or not. Each experiment's
// registry entry (internal/experiments: Entry.Sections) carries its
// sections; report and compare render them by experiment name and import
// no experiment (the reporter beside the metrics it reads, as vegeta's
// lib/reporters.go).
package section

import (
	"slices"
	"sync"

	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/textfmt"
)

// Section is one part of an experiment's page. Every field may be nil.
type Section struct {
	// Tables are e's tables (none: nil); key shortens a configuration's
	// key as the page's own table does.
	Tables func(e *results.Experiment, key func(string) string) []Table
	// Bars are e's stacked bars on the HTML page, one per configuration,
	// drawn on one scale for every file of the experiment; BarNote says
	// what a bar is.
	Bars    func(e *results.Experiment, key func(string) string) []Bar
	BarNote string
	// Parts are the named parts of a configuration's figure, in order,
	// each with the metric that holds it: compare's component lines say
	// which of those rows moved. PartsTitle introduces them in compare's
	// output.
	Parts      []Part
	PartsTitle string
}

// Part is one named part of a configuration's figure and its metric key.
// What says what the part is in the experiment's headline sentence (the
// summary's "..., 21 µs of it the CPU leaving idle"); "" for a part the
// sentence never names (an unattributed residual).
type Part struct{ Name, Metric, What string }

// Table is one table of a section.
type Table struct {
	// Intro is the text page's item before the table.
	Intro string
	// HTMLTitle heads the table on the HTML page ("": the HTML page
	// leaves it out); written as it is, as is Section.BarNote (the
	// code's text, never data).
	HTMLTitle string
	Table     textfmt.Table
}

// Bar is one configuration's stacked bar.
type Bar struct {
	Config, Label, Total string
	Parts                []BarPart // every part, drawn or not (0: not drawn)
}

// BarPart is one part of a bar: its name (the CSS class is "c-" + Name),
// hover title and value.
type BarPart struct {
	Name, Title string
	Value       float64
}

// Column priorities of a section's table (textfmt.Table.Priority), as the
// page's own table: kept, judged, other (cut first to fit 120 columns).
const (
	Keep   = 0
	Judged = 1
	Other  = 2
)

var (
	mu       sync.RWMutex
	sections = map[string][]Section{}
)

// Register adds experiment's sections (internal/experiments does, for
// every registry entry, at init).
func Register(experiment string, s ...Section) {
	mu.Lock()
	defer mu.Unlock()
	sections[experiment] = append(sections[experiment], s...)
}

// PartsOf is experiment's parts: those of the first of its sections with
// Parts, nil for none.
func PartsOf(experiment string) []Part {
	for _, s := range For(experiment) {
		if len(s.Parts) > 0 {
			return s.Parts
		}
	}
	return nil
}

// For returns experiment's sections, in registry order.
func For(experiment string) []Section {
	mu.RLock()
	defer mu.RUnlock()
	return slices.Clone(sections[experiment])
}
