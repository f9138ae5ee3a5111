package lot

import (
	"fmt"
	"os"
	"testing"
)

// TestMain installs the platform default backend, or the tests' own
// chanBackend when internal/parkers offers no thread parker here.
func TestMain(m *testing.M) {
	if _, err := defaultBackend(); err != nil {
		fmt.Fprintf(os.Stderr, "lot tests: %v; using %s\n", err, chanBackend.Name)
		if err := SetBackend(chanBackend); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}
