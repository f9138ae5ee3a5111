package report

import (
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/parkbench/parkbench/internal/plot"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/textfmt"
)

// renderHTML writes one self-contained page for files: the machines side
// by side, each file's summary, then per experiment its plot (every file
// holding it drawn into one figure) and each file's table, claims, notes
// and warnings, the files side by side where the window is wide enough.
// Nothing is fetched: the style is inline and each plot an SVG in a data:
// URI (an <img>, so that nothing in a result file can run as script).
func renderHTML(w io.Writer, files []results.Named, o Options) error {
	page := htmlPage{Title: "parkbench report"}
	var names []string
	for i, n := range files {
		name := n.Name
		if name == "" {
			name = "result " + strconv.Itoa(i+1)
		}
		names = append(names, filepath.Base(name))
	}
	if len(names) > 0 {
		page.Title += ": " + strings.Join(names, ", ")
	}
	page.Files = names
	page.Machines = machineRows(files)
	for i, n := range files {
		// Headed by the machine, the file beneath it: two machines side
		// by side are told apart by what they are, not by file names.
		head := n.File.Machine.Slug
		if head == "" {
			head = names[i]
		}
		hs := htmlSummary{Head: head, File: names[i], Load: results.LoadNote(n.File), Lines: SummaryLines(n.File)}
		notes, _ := footnotes(n.File)
		for _, fn := range notes {
			hs.Footnotes = append(hs.Footnotes, fn.text(o.Verbose))
		}
		page.Summaries = append(page.Summaries, hs)
	}
	var exps []string
	for _, n := range files {
		for _, e := range n.File.Experiments {
			if !slices.Contains(exps, e.Name) {
				exps = append(exps, e.Name)
			}
		}
	}
	for _, name := range exps {
		sec := htmlExperiment{Name: name, ID: "exp-" + anchor(name)}
		var in []results.Named
		for i, n := range files {
			e := n.File.Experiment(name)
			if e == nil {
				continue
			}
			in = append(in, results.Named{Name: names[i], File: n.File})
			hf := htmlFileExperiment(names[i], e, o)
			if _, refs := footnotes(n.File); len(refs[name]) > 0 {
				hf.Warnings = []string{"warnings" + refList(refs[name]) + ": in the summary"}
			}
			// Headed by the experiment and the machine, the file beneath:
			// a file name ("suite-20261203T122006Z.json") says neither.
			hf.Head = name
			if slug := n.File.Machine.Slug; slug != "" {
				hf.Head += " on " + slug
			}
			sec.Files = append(sec.Files, hf)
		}
		scaleBars(sec.Files)
		if slices.Contains(plot.Experiments(in[0].File), name) {
			svg, err := plot.Render(in, "svg", plot.Options{Experiment: name, Preferred: o.Preferred, Page: true})
			if err != nil {
				sec.PlotError = err.Error()
			} else {
				sec.Plot = template.URL("data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString(svg))
				sec.PlotAlt = fmt.Sprintf("%s plot of %s", name, strings.Join(fileNames(in), ", "))
			}
		}
		page.Experiments = append(page.Experiments, sec)
	}
	return htmlTemplate.Execute(w, page)
}

func fileNames(in []results.Named) []string {
	var out []string
	for _, n := range in {
		out = append(out, n.Name)
	}
	return out
}

// anchor is s as an HTML id.
func anchor(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '-'
	}, s)
}

type htmlPage struct {
	Title       string
	Files       []string
	Machines    []htmlRow
	Summaries   []htmlSummary
	Experiments []htmlExperiment
}

type htmlRow struct {
	Label string
	Cells []string
	// Differ marks a row whose machines differ.
	Differ bool
}

type htmlSummary struct {
	Head, File string
	// Load is results.LoadNote: the file was recorded under load.
	Load  string
	Lines []SummaryLine
	// Footnotes are the file's warnings, numbered, each once (footnotes).
	Footnotes []string
}

type htmlExperiment struct {
	Name, ID  string
	Plot      template.URL
	PlotAlt   string
	PlotError string
	Files     []htmlFile
}

type htmlFile struct {
	// Head names the experiment and the machine; File is the file's name.
	Head     string
	File     string
	Runtime  string
	Preface  string
	Table    htmlTable
	Wide     htmlTable
	WideNote string
	Legend   []string
	Pivots   []htmlPivot
	Stacks   []htmlStack
	// Sections are the experiment's own tables and stacked bars (its
	// registry entry's: internal/report/section).
	Sections []htmlSection
	Claims   []htmlClaim
	Notes    []string
	Warnings []string
}

type htmlTable struct {
	Header []string
	Rows   [][]string
}

// tallRows is the most rows a table shows at full height; a longer one
// scrolls in a box of about that height (CSS .tall), its header row kept
// in view, so that a suite's page keeps its plots and claims within a few
// screens (15,000 px or less at 1280 px wide: scripts/html-check.sh).
const tallRows = 14

// Tall reports whether t scrolls in its own box.
func (t htmlTable) Tall() bool { return len(t.Rows) > tallRows }

type htmlPivot struct {
	Title string
	Table htmlTable
}

type htmlStack struct {
	Head string
	Text string
}

// htmlClaim is a claim on the page: Why is its one reason (Reason), for
// anything but a clear hold.
type htmlClaim struct {
	ID, Statement, Verdict, Class, Why, Evidence string
}

func table(t textfmt.Table) htmlTable { return htmlTable{t.Header, t.Rows} }

// machineRows are the machines of files side by side, one row per fact.
func machineRows(files []results.Named) []htmlRow {
	facts := []struct {
		label string
		get   func(f *results.File) string
	}{
		{"machine class", func(f *results.File) string { return f.Machine.Slug }},
		{"CPU", func(f *results.File) string { return f.Machine.CPUModel }},
		{"logical CPUs", func(f *results.File) string { return strconv.Itoa(f.Machine.LogicalCPUs) }},
		{"OS / arch", func(f *results.File) string { return f.Machine.OS + "/" + f.Machine.Arch }},
		{"kernel", func(f *results.File) string { return f.Machine.Kernel }},
		{"virtualization", func(f *results.File) string { return f.Machine.Virtualization }},
		{"clock source", func(f *results.File) string { return f.Machine.ClockSource }},
		{"CPU governor", func(f *results.File) string { return f.Machine.Governor }},
		{"futex hash", func(f *results.File) string {
			if f.Machine.FutexHash == "private" {
				return fmt.Sprintf("private (%d slots)", f.Machine.FutexHashSlots)
			}
			return f.Machine.FutexHash
		}},
		{"Go", func(f *results.File) string { return f.Machine.GoVersion }},
		{"load at start", func(f *results.File) string {
			l := f.Machine.LoadAvg
			return fmt.Sprintf("%.2f %.2f %.2f", l[0], l[1], l[2])
		}},
		{"recorded under load", func(f *results.File) string {
			if n := results.LoadNote(f); n != "" {
				return strings.TrimPrefix(n, "recorded under load: ")
			}
			return "no"
		}},
		{"started", func(f *results.File) string { return f.Started.UTC().Format("2006-01-02 15:04 UTC") }},
		{"parkbench", func(f *results.File) string { return toolSummary(f.Tool) }},
		{"command", func(f *results.File) string { return strings.Join(f.Command, " ") }},
	}
	var rows []htmlRow
	for _, fact := range facts {
		r := htmlRow{Label: fact.label}
		for _, n := range files {
			v := fact.get(n.File)
			if v == "" {
				v = "—"
			}
			r.Cells = append(r.Cells, v)
		}
		for _, c := range r.Cells[1:] {
			if c != r.Cells[0] {
				r.Differ = true
			}
		}
		rows = append(rows, r)
	}
	return rows
}

func htmlFileExperiment(name string, e *results.Experiment, o Options) htmlFile {
	ks := shortener(e)
	hf := htmlFile{File: name, Runtime: RuntimeSummary(e.Runtime), Preface: tablePreface(e, ks)}
	if specs, ok := e.Specs(); ok && len(specs) == 0 {
		for _, c := range e.Configs {
			var b strings.Builder
			renderStacks(&page{w: &b}, &results.Experiment{Configs: []*results.Config{c}, DetailOrder: e.DetailOrder})
			head, body, _ := strings.Cut(b.String(), "\n")
			hf.Stacks = append(hf.Stacks, htmlStack{Head: head, Text: strings.TrimRight(body, "\n")})
		}
	} else {
		t, diag, legend := ConfigTable(e, Options{}, ks)
		hf.Table, hf.Legend = table(t), legend
		if len(diag) > 0 || o.Wide {
			w, _, _ := ConfigTable(e, Options{Wide: true}, ks)
			hf.Wide = table(w)
			hf.WideNote = fmt.Sprintf("every column (%d more: the diagnostics, details, probes and foreign CPU)", len(w.Header)-len(t.Header))
		}
		for _, pv := range Pivots(e) {
			hf.Pivots = append(hf.Pivots, htmlPivot{pv.Title, table(pv.Table)})
		}
	}
	hf.Sections = htmlSections(e, ks)
	for _, c := range e.Claims {
		hc := htmlClaim{ID: c.ID, Statement: c.Statement, Verdict: claimMarkOf(c, false), Evidence: c.Evidence, Class: "unknown"}
		if c.Verdict != results.Holds || c.Near {
			hc.Why = Reason(c)
		}
		switch c.Verdict {
		case results.Holds:
			hc.Class = "holds"
		case results.DoesNotHold:
			hc.Class = "fails"
		}
		hf.Claims = append(hf.Claims, hc)
	}
	hf.Notes = e.Notes
	return hf
}

var htmlTemplate = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="parkbench report --format=html">
<title>{{.Title}}</title>
<style>
:root { --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --bg2: #f6f8fa; --ok: #1a7f37; --bad: #cf222e; --na: #6e7781; }
* { box-sizing: border-box; }
body { margin: 0 auto; padding: 1.5rem 2rem 4rem; max-width: 110rem; color: var(--fg);
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Liberation Sans", sans-serif; }
h1 { font-size: 1.7rem; margin: 0 0 .2rem; }
h2 { font-size: 1.35rem; margin: 2.2rem 0 .6rem; padding-bottom: .3rem; border-bottom: 1px solid var(--line); }
h3 { font-size: 1.05rem; margin: .2rem 0 .5rem; font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; }
h4 { font-size: .95rem; margin: 1rem 0 .3rem; }
nav { color: var(--muted); margin-bottom: 1rem; }
nav a { margin-right: .8rem; }
.sub { color: var(--muted); margin: 0; }
.files { display: grid; gap: 1.2rem 2rem; grid-template-columns: repeat(auto-fit, minmax(min(100%, 50rem), 1fr)); }
.file { min-width: 0; }
.scroll { overflow-x: auto; max-width: 100%; }
.scroll.tall { max-height: 27rem; overflow-y: auto; border-bottom: 1px solid var(--line); }
.scroll.tall table { margin: 0; }
.scroll.tall th { position: sticky; top: 0; z-index: 1; }
table { border-collapse: collapse; font-size: .88rem; font-variant-numeric: tabular-nums; margin: .4rem 0; }
th, td { border: 1px solid var(--line); padding: .25rem .55rem; text-align: right; white-space: nowrap; }
th { background: var(--bg2); font-weight: 600; }
td:first-child, th:first-child { text-align: left; font-family: ui-monospace, Menlo, Consolas, monospace; }
table.machines td, table.machines th { text-align: left; white-space: normal; font-family: inherit; }
table.machines th[scope=row] { white-space: nowrap; }
table.machines tr.differ td { background: #fff8c5; }
ul { margin: .3rem 0; padding-left: 1.3rem; }
li { margin: .15rem 0; }
.muted, .runtime { color: var(--muted); font-size: .9rem; }
.verdict { display: inline-block; font-size: .75rem; font-weight: 700; padding: 0 .4rem; border-radius: .7rem; color: #fff; }
.holds .verdict { background: var(--ok); }
.fails .verdict { background: var(--bad); }
.unknown .verdict { background: var(--na); }
.why { display: block; color: var(--fg); margin-left: 1rem; }
.fails .why { color: var(--bad); }
.warning { color: #9a6700; }
figure { margin: .5rem 0 1rem; }
figure img { width: 100%; height: auto; border: 1px solid var(--line); }
figcaption { color: var(--muted); font-size: .85rem; }
details { margin: .3rem 0; }
summary { cursor: pointer; color: var(--muted); }
pre { background: var(--bg2); padding: .6rem; overflow-x: auto; font-size: .82rem; }
.barrow { display: grid; grid-template-columns: 12rem 1fr 5rem; gap: .6rem; align-items: center; margin: .2rem 0; }
.barrow code { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.bar { display: flex; height: 1.1rem; background: var(--bg2); }
.bar span { display: block; height: 100%; }
.legend span { margin-right: .8rem; font-size: .85rem; }
.legend i { display: inline-block; width: .8rem; height: .8rem; margin-right: .25rem; vertical-align: -.1rem; }
.c-call { background: #0969da; } .c-idle_exit { background: #cf222e; } .c-schedule { background: #bf8700; }
.c-return { background: #1a7f37; } .c-residual { background: #8250df; }
</style>
</head>
<body>
<header>
<h1>parkbench report</h1>
<p class="sub">{{len .Files}} result file{{if ne (len .Files) 1}}s{{end}}: {{range $i, $f := .Files}}{{if $i}}, {{end}}<code>{{$f}}</code>{{end}}</p>
</header>
<nav><a href="#machines">machines</a><a href="#summary">summary</a>{{range .Experiments}}<a href="#{{.ID}}">{{.Name}}</a>{{end}}</nav>

<section id="machines">
<h2>Machines</h2>
<div class="scroll"><table class="machines">
<tr><th></th>{{range .Files}}<th scope="col">{{.}}</th>{{end}}</tr>
{{range .Machines}}<tr{{if .Differ}} class="differ"{{end}}><th scope="row">{{.Label}}</th>{{range .Cells}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table></div>
{{if gt (len .Files) 1}}<p class="muted">Highlighted: the rows where the machines differ.</p>{{end}}
</section>

<section id="summary">
<h2>Summary</h2>
<div class="files">
{{range .Summaries}}<div class="file summary">
<h3>{{.Head}}</h3>
<p class="muted"><code>{{.File}}</code></p>
{{if .Load}}<p class="warning">warning: {{.Load}}: its figures carry the other processes' noise</p>{{end}}
<ul>{{range .Lines}}<li>{{.Text}}{{if .Sub}}<ul>{{range .Sub}}<li class="fails">{{.}}</li>{{end}}</ul>{{end}}</li>{{end}}</ul>
{{if .Footnotes}}<h4>Warnings</h4><ul class="warnings">{{range .Footnotes}}<li class="warning">{{.}}</li>{{end}}</ul>{{end}}
</div>
{{end}}</div>
</section>

{{range .Experiments}}<section id="{{.ID}}" class="experiment">
<h2>{{.Name}}</h2>
{{if .Plot}}<figure><img src="{{.Plot}}" alt="{{.PlotAlt}}"><figcaption>{{.PlotAlt}}</figcaption></figure>
{{else if .PlotError}}<p class="muted">No plot: {{.PlotError}}</p>
{{end}}<div class="files">
{{range .Files}}<div class="file">
<h3>{{.Head}}</h3>
<p class="muted"><code>{{.File}}</code></p>
<p class="runtime">{{.Runtime}}</p>
{{if .Preface}}<p class="muted">{{.Preface}}</p>{{end}}
{{if .Table.Header}}<div class="scroll{{if .Table.Tall}} tall{{end}}"><table>
<tr>{{range .Table.Header}}<th>{{.}}</th>{{end}}</tr>
{{range .Table.Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table></div>{{end}}
{{range .Legend}}<p class="muted">{{.}}</p>{{end}}
{{if .Wide.Header}}<details><summary>{{.WideNote}}</summary><div class="scroll{{if .Wide.Tall}} tall{{end}}"><table>
<tr>{{range .Wide.Header}}<th>{{.}}</th>{{end}}</tr>
{{range .Wide.Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table></div></details>{{end}}
{{range .Pivots}}<h4>{{.Title}}</h4><div class="scroll{{if .Table.Tall}} tall{{end}}"><table>
<tr>{{range .Table.Header}}<th>{{.}}</th>{{end}}</tr>
{{range .Table.Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table></div>
{{end}}{{range .Stacks}}<h4>{{.Head}}</h4><pre>{{.Text}}</pre>
{{end}}{{range .Sections}}<h4>{{.Title}}</h4>
{{if .BarNote}}<div class="anatomy">{{range .Bars}}<div class="barrow"><code>{{.Config}}</code><div class="bar" role="img" aria-label="{{.Label}}">{{range .Parts}}<span class="{{.Class}}" style="{{.Style}}" title="{{.Title}}"></span>{{end}}</div><span class="muted">{{.Total}}</span></div>
{{end}}<p class="legend">{{range .Legend}}<span><i class="{{.Class}}"></i>{{.Name}}</span> {{end}}<span class="muted">{{.BarNote}}</span></p></div>
{{end}}<div class="scroll{{if .Table.Tall}} tall{{end}}"><table>
<tr>{{range .Table.Header}}<th>{{.}}</th>{{end}}</tr>
{{range .Table.Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table></div>
{{end}}{{if .Claims}}<h4>Claims</h4><ul class="claims">
{{range .Claims}}<li class="{{.Class}}"><span class="verdict">{{.Verdict}}</span> <b>{{.ID}}</b>: {{.Statement}}{{if .Why}}<span class="why">why: {{.Why}}</span>{{end}}{{if .Evidence}}<details><summary>evidence</summary>{{.Evidence}}</details>{{end}}</li>
{{end}}</ul>{{end}}
{{if .Notes}}<details><summary>{{len .Notes}} note{{if ne (len .Notes) 1}}s{{end}}</summary><ul>{{range .Notes}}<li>{{.}}</li>{{end}}</ul></details>{{end}}
{{if .Warnings}}<ul class="warnings">{{range .Warnings}}<li class="warning">{{.}}</li>{{end}}</ul>{{end}}
</div>
{{end}}</div>
</section>
{{end}}
</body>
</html>
`))
