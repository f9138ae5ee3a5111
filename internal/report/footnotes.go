package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/parkbench/parkbench/internal/results"
)

// footnote is one group of a file's warnings, printed once and numbered:
// one code (results.Warning) over every experiment it occurs in, or one
// prose warning with its figures taken out.
type footnote struct {
	n    int
	code string
	// first is the first warning's text; figs the figures of the code's
	// warnings, in order.
	first string
	figs  []float64
	// exps are the experiments it covers, in order, each with its
	// configurations (short keys) and their figures.
	exps []string
	keys map[string][]string
	each map[string][]string // --verbose: each configuration's own text
}

// The sentence of each code's footnote; a prose warning's is its text.
var codeText = map[string]string{
	results.WarnForeignCPU: "other processes used %s of the CPU time while these ran: the figures are noisy (compare them within " +
		"this run; rerun on a quiet machine to record or quote them)",
	results.WarnBimodalNoSleep: "bimodal where waits returned without sleeping (the short mode: the reply was there first); " +
		"the table's median is the waits that slept (the wake), the share that did not beside it",
	results.WarnBimodalMechanism: "bimodal with the threads kept to one placement: the modes are the mechanism's own paths",
	results.WarnBimodalRounds: "bimodal because rounds landed in different regimes (the host or the scheduler moved between " +
		"rounds; the median of rounds is one regime's: compare such rows within one run)",
}

// footnotes groups f's warnings (each configuration's, coded and prose;
// each experiment's; the file's) into numbered footnotes, in order of
// first appearance, and returns them with each experiment's numbers.
func footnotes(f *results.File) (notes []*footnote, refs map[string][]int) {
	refs = map[string][]int{}
	by := map[string]*footnote{}
	add := func(exp string, ks keyShortener, w results.Warning) {
		id := w.Code
		if id == results.WarnProse {
			id = "prose:" + figures.ReplaceAllString(w.Text, "#")
		}
		fn, ok := by[id]
		if !ok {
			fn = &footnote{n: len(notes) + 1, code: w.Code, first: w.Text, keys: map[string][]string{}, each: map[string][]string{}}
			by[id] = fn
			notes = append(notes, fn)
		}
		if !slices.Contains(fn.exps, exp) {
			fn.exps = append(fn.exps, exp)
		}
		if !slices.Contains(refs[exp], fn.n) {
			refs[exp] = append(refs[exp], fn.n)
		}
		fn.figs = append(fn.figs, w.Figure)
		for _, k := range w.Configs {
			label := ks.key(k)
			if w.Code == results.WarnBimodalNoSleep {
				label += fmt.Sprintf(" %.0f%%", 100*w.Figure)
			}
			fn.keys[exp] = append(fn.keys[exp], label)
			fn.each[exp] = append(fn.each[exp], ks.key(k)+": "+w.Text)
		}
	}
	for _, e := range f.Experiments {
		ks := shortener(e)
		for _, t := range e.Warnings {
			add(e.Name, ks, results.Warning{Text: t})
		}
		for _, c := range e.Configs {
			for _, w := range c.AllWarnings() {
				add(e.Name, ks, w)
			}
		}
	}
	for _, t := range f.Warnings {
		add("", keyShortener{}, results.Warning{Text: t})
	}
	return notes, refs
}

// text is the footnote's line: its sentence (with the code's figures as a
// range) and where it applies, at most a few configurations named per
// experiment unless verbose.
func (fn *footnote) text(verbose bool) string {
	s := fn.first
	if t, ok := codeText[fn.code]; ok {
		s = t
		if strings.Contains(t, "%s") {
			s = fmt.Sprintf(t, shareRange(fn.figs))
		}
	}
	var where []string
	for _, e := range fn.exps {
		keys := fn.keys[e]
		switch {
		case e == "":
			continue
		case len(keys) == 0:
			where = append(where, e)
		case len(keys) == 1:
			where = append(where, e+" "+keys[0])
		case verbose || len(keys) <= 3 || fn.code == results.WarnBimodalNoSleep:
			where = append(where, fmt.Sprintf("%s (%d): %s", e, len(keys), strings.Join(keys, ", ")))
		default:
			where = append(where, fmt.Sprintf("%s %d configurations (e.g. %s)", e, len(keys), keys[0]))
		}
	}
	if len(where) > 0 {
		s += ": " + strings.Join(where, "; ")
	}
	return fmt.Sprintf("[%d] %s", fn.n, s)
}

// shareRange is the range of shares: "12%" or "5-72%".
func shareRange(fs []float64) string {
	if len(fs) == 0 {
		return "a share"
	}
	lo, hi := slices.Min(fs), slices.Max(fs)
	if fmt.Sprintf("%.0f", 100*lo) == fmt.Sprintf("%.0f", 100*hi) {
		return fmt.Sprintf("%.0f%%", 100*hi)
	}
	return fmt.Sprintf("%.0f-%.0f%%", 100*lo, 100*hi)
}

// refList is " [1] [3]": an experiment's footnote numbers, "" for none.
func refList(ns []int) string {
	var b strings.Builder
	for _, n := range ns {
		fmt.Fprintf(&b, " [%d]", n)
	}
	return b.String()
}

// renderFootnotes writes the file's footnotes under "warnings".
func renderFootnotes(p *page, notes []*footnote, verbose bool) {
	if len(notes) == 0 {
		return
	}
	if p.md {
		p.heading(3, "warnings")
	} else {
		p.heading(0, "warnings")
	}
	for _, fn := range notes {
		p.item(fn.text(verbose))
		if verbose {
			for _, e := range fn.exps {
				for _, t := range fn.each[e] {
					p.sub(e + " " + t)
				}
			}
		}
	}
	p.blank()
}
