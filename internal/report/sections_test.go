package report

import (
	"github.com/parkbench/parkbench/internal/anatomy"
	"github.com/parkbench/parkbench/internal/report/section"
)

// The tests render the anatomy's sections as latency's and herd's registry
// entries register them (internal/experiments).
func init() {
	section.Register("latency", anatomy.LatencySection)
	section.Register("herd", anatomy.HerdSection)
}
