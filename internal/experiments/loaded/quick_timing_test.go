package loaded

import (
	"context"
	"os"
	"testing"
	"time"
)

func TestQuickTiming(t *testing.T) {
	if os.Getenv("PB_TIMING") == "" {
		t.Skip("PB_TIMING")
	}
	t0 := time.Now()
	exp, err := Run(context.Background(), QuickOptions(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d configs in %v", len(exp.Configs), time.Since(t0))
	for _, n := range exp.Notes {
		t.Log(n)
	}
}
