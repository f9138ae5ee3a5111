package anatomy

import (
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/results"
)

// herd --anatomy's figures get their own table in the text report.
func TestHerdTraceTable(t *testing.T) {
	cfg := func(impl string, slept float64) *results.Config {
		return &results.Config{Key: impl + "/unpinned/notify=notify-all/lock-held=true/n=16", Impl: impl,
			Summary: map[string]float64{MHerdSleptAgain: slept, MHerdResleeps: slept, MHerdRunnable: 1,
				MHerdTraced: 16, MHerdFlagged: 0}}
	}
	e := &results.Experiment{Name: "herd", Configs: []*results.Config{cfg("lot", 0), cfg("futex-broadcast", 15),
		{Key: "sync/unpinned/notify=notify-all/lock-held=true/n=16", Impl: "sync", Summary: map[string]float64{}}}}
	key := func(k string) string { return k }
	tb := HerdTraceTable(e, key)
	if len(tb.Rows) != 2 || tb.Rows[1][1] != "15" || tb.Rows[0][1] != "0" {
		t.Fatalf("rows %v, want lot 0 and futex-broadcast 15 (sync untraced: no row)", tb.Rows)
	}
	if ts := HerdSection.Tables(e, key); len(ts) != 1 || !strings.Contains(ts[0].Intro, "slept again") {
		t.Fatalf("herd's section: %+v, want the trace table", ts)
	}
}
