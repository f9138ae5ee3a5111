package stress

import (
	"fmt"
	"os"
	"testing"
)

// mainWithSummary runs the tests and, if summary is set (parkchaos
// builds) and the run is verbose or long, prints it.
func mainWithSummary(m *testing.M, summary func() string) {
	code := m.Run()
	if summary != nil && (testing.Verbose() || currentMode().long) {
		fmt.Fprint(os.Stderr, summary())
	}
	os.Exit(code)
}
