package results_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parkbench/parkbench/internal/longtest"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/results/resultstest"
)

// TestFindBaseline: the baseline is the newest result of the new result's
// machine class, found across slug directories of an older slug rule,
// never the new result's own recorded copy, preferring one that holds the
// same experiments; none is ErrNoBaseline.
func TestFindBaseline(t *testing.T) {
	longtest.Skip(t)
	dir := t.TempDir()
	now := results.Machine{Hostname: "vm", OS: "linux", Arch: "amd64", LogicalCPUs: 2, CPUModel: "Intel(R) Xeon(R) Processor",
		CPUVendor: "GenuineIntel", CPUFamily: 6, CPUModelNumber: 167, Virtualization: "vm+docker", GoVersion: "go1.26.8"}
	now.Slug = results.Slug(now)
	old := now
	old.CPUModel, old.CPUVendor, old.CPUFamily, old.CPUModelNumber = "Intel(R) Xeon(R) Processor @ 2.80GHz", "", 0, 0
	old.Slug = "linux-amd64-2cpu-intel-xeon-2-80ghz-vm" // the slug rule of the time
	amd := resultstest.Machine("AMD EPYC 7763 64-Core Processor", 2)

	t0 := time.Date(2026, 12, 1, 21, 22, 30, 0, time.UTC)
	write := func(m results.Machine, at time.Time, suite bool) string {
		s := resultstest.Spec{Machine: m, Started: at, Samples: 50}
		f := resultstest.File(s, resultstest.Latency(s))
		if suite {
			f = resultstest.Suite(s)
		}
		p, err := results.Record(dir, f, "")
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	fresh := resultstest.Suite(resultstest.Spec{Machine: now, Started: t0.Add(24 * time.Hour), Samples: 50})
	if _, _, err := results.FindBaseline(dir, fresh); !errors.Is(err, results.ErrNoBaseline) {
		t.Fatalf("empty dir: %v", err)
	}
	oldSuite := write(old, t0, true)
	write(old, t0.Add(time.Hour), false) // newer, but holds latency only
	write(amd, t0.Add(2*time.Hour), true)
	if _, err := results.Record(dir, fresh, ""); err != nil { // --record files it first
		t.Fatal(err)
	}
	b, _, err := results.FindBaseline(dir, fresh)
	if err != nil {
		t.Fatal(err)
	}
	if b.Path != oldSuite || !strings.Contains(b.Why, "by CPU name") || !strings.Contains(b.Why, "own recorded copy skipped") {
		t.Fatalf("baseline %s (%s), want %s", b.Path, b.Why, oldSuite)
	}
	// A file that does not decode is skipped and named.
	if err := os.WriteFile(filepath.Join(dir, "broken.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, skipped, err := results.FindBaseline(dir, fresh); err != nil || len(skipped) != 1 {
		t.Fatalf("skipped %v, err %v", skipped, err)
	}
	// Only the run's own copy: no baseline, and the message says so.
	only := t.TempDir()
	if _, err := results.Record(only, fresh, ""); err != nil {
		t.Fatal(err)
	}
	if _, _, err := results.FindBaseline(only, fresh); !errors.Is(err, results.ErrNoBaseline) || !strings.Contains(err.Error(), "own recorded copy") {
		t.Fatalf("own copy only: %v", err)
	}
}
