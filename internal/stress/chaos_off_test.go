//go:build !parkchaos

package stress

import "testing"

func TestMain(m *testing.M) { mainWithSummary(m, nil) }
