package lot

import (
	"fmt"
	"os"
	"testing"

	"github.com/parkbench/parkbench/internal/chaos"
)

// TestMain installs the platform default backend, or the tests' own
// chanBackend when internal/parkers offers no thread parker here, or only
// one the tests cannot run on (wasm's, which panics on every park).
func TestMain(m *testing.M) {
	b, err := defaultBackend()
	if err == nil && !runsHere(b) {
		err = fmt.Errorf("the platform parker %q panics on every park here (upstream wasm.rs)", b.Name)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "lot tests: %v; using %s\n", err, chanBackend.Name)
		if err := SetBackend(chanBackend); err != nil {
			panic(err)
		}
	}
	code := m.Run()
	if chaos.Enabled {
		// Built with -tags parkchaos: say which points injected how often.
		fmt.Fprintf(os.Stderr, "lot tests: chaos injected %d faults\n", chaos.Injected())
	}
	os.Exit(code)
}
