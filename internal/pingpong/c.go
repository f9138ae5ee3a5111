package pingpong

import (
	"context"

	"github.com/parkbench/parkbench/internal/cref"
)

// C is the C reference's pair p as a Runner (closing it closes p). A
// cancelled ctx ends a C round within one round trip
// (cref.Pair.RoundContext). A plugin's C row is watched by its threads
// (internal/watch, internal/cref/cref_watch.h).
func C(p *cref.Pair) Runner { return cPair{p} }

type cPair struct {
	p *cref.Pair
}

func (c cPair) Round(ctx context.Context, n int) (Round, error) {
	r, err := c.p.RoundContext(ctx, n)
	if err != nil {
		return Round{}, err
	}
	return Round{Samples: r.Samples, Ends: r.Ends, NoSleep: r.NoSleep, ThreadCsw: r.ThreadCsw, Same: r.SameCPU, CPUs: r.CPUSamples}, nil
}
func (c cPair) Immediate() uint64 { return 0 }
func (c cPair) Tids() [2]int32 {
	t := c.p.Tids()
	return [2]int32{int32(t[0]), int32(t[1])}
}
func (c cPair) Close() { c.p.Close() }
