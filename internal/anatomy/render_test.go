package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/anatomy"
	"github.com/parkbench/parkbench/internal/results"
)

// herd --anatomy's figures get their own table in the text report.
func TestHerdTraceTable(t *testing.T) {
	cfg := func(impl string, slept float64) *results.Config {
		return &results.Config{Key: impl + "/unpinned/notify=notify-all/lock-held=true/n=16", Impl: impl,
			Summary: map[string]float64{anatomy.MHerdSleptAgain: slept, anatomy.MHerdResleeps: slept, anatomy.MHerdRunnable: 1,
				anatomy.MHerdTraced: 16, anatomy.MHerdFlagged: 0}}
	}
	e := &results.Experiment{Name: "herd", Configs: []*results.Config{cfg("lot", 0), cfg("futex-broadcast", 15),
		{Key: "sync/unpinned/notify=notify-all/lock-held=true/n=16", Impl: "sync", Summary: map[string]float64{}}}}
	tb := HerdTraceTable(e, shortener(e))
	if len(tb.Rows) != 2 || tb.Rows[1][1] != "15" || tb.Rows[0][1] != "0" {
		t.Fatalf("rows %v, want lot 0 and futex-broadcast 15 (sync untraced: no row)", tb.Rows)
	}
	var buf bytes.Buffer
	renderAnatomy(&page{w: &buf}, e, shortener(e))
	if !strings.Contains(buf.String(), "slept again") {
		t.Fatalf("no herd trace table:\n%s", buf.String())
	}
}
