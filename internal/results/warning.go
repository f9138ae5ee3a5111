package results

import (
	"regexp"
	"strconv"
	"strings"
)

// Warning is one coded warning of a configuration: what it is (Code), its
// figure and the configurations it covers, and its text. The renderers
// group warnings by code and print each group once, as a numbered
// footnote; nothing downstream reads Text to tell warnings apart.
type Warning struct {
	Code string `json:"code"`
	// Figure is the warning's number, in the code's unit (a share 0..1
	// for WarnForeignCPU and WarnBimodalNoSleep); 0 when it has none.
	Figure float64 `json:"figure,omitempty"`
	// Configs are the keys of the configurations it covers.
	Configs []string `json:"configs,omitempty"`
	// Text is the warning as one configuration's line.
	Text string `json:"text"`
}

// Warning codes. WarnProse is a warning without a code (Config.Warnings:
// the experiments' other warnings, and what a file written before codes
// says that the loader does not recognise).
const (
	WarnProse = ""
	// WarnForeignCPU: other processes used more than driver.ForeignNoisy
	// of the CPU time while the configuration ran; Figure is the share.
	WarnForeignCPU = "foreign-cpu"
	// WarnBimodalNoSleep: the samples fall into two modes because a share
	// of the waits found their reply before they slept (Figure); the
	// table's median is the waits that slept.
	WarnBimodalNoSleep = "bimodal-no-sleep"
	// WarnBimodalMechanism: two modes with the threads kept to one
	// placement: the mechanism's own paths.
	WarnBimodalMechanism = "bimodal-mechanism"
	// WarnBimodalRounds: two modes because rounds landed in different
	// regimes (the host or the scheduler moved between rounds).
	WarnBimodalRounds = "bimodal-rounds"
)

// Warn adds w to c's coded warnings, covering c unless it names its
// configurations.
func (c *Config) Warn(w Warning) {
	if len(w.Configs) == 0 {
		w.Configs = []string{c.Key}
	}
	c.Coded = append(c.Coded, w)
}

// AllWarnings is every warning of c: its coded ones, then its prose ones
// as warnings of WarnProse.
func (c *Config) AllWarnings() []Warning {
	out := append([]Warning(nil), c.Coded...)
	for _, t := range c.Warnings {
		out = append(out, Warning{Code: WarnProse, Configs: []string{c.Key}, Text: t})
	}
	return out
}

// The prose of the warnings that have a code now, as files written before
// codes carry them (codeProse).
var (
	proseForeign = regexp.MustCompile(`^other processes used ([0-9]+)% of the CPU time while this ran`)
	proseNoSleep = regexp.MustCompile(`([0-9]+)% of waits never slept`)
)

// codeProse gives the warnings of a file written before codes their code
// where their text says which (the foreign-CPU and bimodality warnings),
// so every renderer reads codes alone; the rest stay prose.
func codeProse(f *File) {
	for _, e := range f.Experiments {
		for _, c := range e.Configs {
			var prose []string
			for _, t := range c.Warnings {
				w, ok := proseCode(t)
				if !ok {
					prose = append(prose, t)
					continue
				}
				w.Text = t
				c.Warn(w)
			}
			c.Warnings = prose
		}
	}
}

func proseCode(t string) (Warning, bool) {
	pct := func(s string) float64 { v, _ := strconv.ParseFloat(s, 64); return v / 100 }
	switch {
	case proseForeign.MatchString(t):
		return Warning{Code: WarnForeignCPU, Figure: pct(proseForeign.FindStringSubmatch(t)[1])}, true
	case !strings.HasPrefix(t, "bimodal:"):
		return Warning{}, false
	case proseNoSleep.MatchString(t):
		return Warning{Code: WarnBimodalNoSleep, Figure: pct(proseNoSleep.FindStringSubmatch(t)[1])}, true
	case strings.Contains(t, "the modes are the mechanism's own"):
		return Warning{Code: WarnBimodalMechanism}, true
	}
	return Warning{Code: WarnBimodalRounds}, true
}
