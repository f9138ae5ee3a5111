package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/results"
)

// run's note about the originals: shown when no experiment ran
// rust-parking_lot (from Go or C threads), within 120 columns.
func TestOriginalsNote(t *testing.T) {
	file := func(impl, kind string) *results.File {
		return &results.File{Experiments: []*results.Experiment{
			{Name: "latency", Configs: []*results.Config{{Impl: "lot", Kind: "thread"}}},
			{Name: "lock", Configs: []*results.Config{{Impl: impl, Kind: kind}}},
		}}
	}
	if originalsLoaded(file("sync", "go-lock")) {
		t.Error("loaded without rust-parking_lot")
	}
	if !originalsLoaded(file("c-rust-parking_lot", "c-reference")) || !originalsLoaded(file("rust-parking_lot", "cgo-lock")) {
		t.Error("not loaded with rust-parking_lot")
	}
	if originalsLoaded(file("c-rust-parking_lot", "go-lock")) {
		t.Error("a Go row named c-rust-parking_lot counted as the original")
	}
	if len(originalsNote) > 120 {
		t.Errorf("the note is %d columns", len(originalsNote))
	}
}

// The Rust originals loaded for real: PARKBENCH_RUST_ORIGINALS names the
// library scripts/rust-originals.sh built (.ci/run sets it; not under
// -race, which does not see the synchronisation inside Rust). Each
// experiment runs lot beside them; the result records the crate versions
// and carries the fidelity claim.
func TestRustOriginals(t *testing.T) {
	lib := os.Getenv("PARKBENCH_RUST_ORIGINALS")
	if lib == "" {
		t.Skip("PARKBENCH_RUST_ORIGINALS is not set (bash scripts/rust-originals.sh | tail -1)")
	}
	wantListed(t, lib, "rust-parking_lot", "c-rust-parking_lot", "rust-crossbeam", "rust-std")
	dir := t.TempDir()
	for _, tc := range []struct {
		args  []string
		claim string
	}{
		{[]string{"latency", "--quick", "--impl=lot,rust-parking_lot,c-rust-parking_lot,rust-crossbeam,rust-std"}, "E12-fidelity-cross-core"},
		{[]string{"selfwake", "--quick", "--impl=lot,c-rust-parking_lot,rust-crossbeam,rust-std"}, "E12-fidelity-selfwake"},
		{[]string{"herd", "--quick", "--impl=lot,rust-parking_lot,rust-std", "--waiters=16"}, "E6-fidelity-requeue"},
		{[]string{"lock", "--quick", "--impl=lot,c-rust-parking_lot,rust-std", "--threads=1,2"}, "lock-fidelity"},
	} {
		t.Run(tc.args[0], func(t *testing.T) {
			data := runWithPlugin(t, dir, lib, tc.args)
			f, err := results.Decode(data)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), "parking_lot_core 0.9.3") {
				t.Error("the result does not record the crate versions")
			}
			var found bool
			for _, e := range f.Experiments {
				for _, c := range e.Claims {
					if c.ID == tc.claim {
						found = true
						t.Logf("%s: %s: %s", c.ID, c.VerdictText(), c.Evidence)
					}
				}
			}
			if !found {
				t.Errorf("no claim %s", tc.claim)
			}
		})
	}
}
