package lock

import "github.com/parkbench/parkbench/internal/results"

// The C floors: the whole loop in C threads on glibc's lock, or on a C
// spin lock for the Go spin lock.
var floors = map[string]string{"spin": "c-spin", "c-spin": ""}

// Metrics describes lock's figures (results.MetricSpec), in table order.
// Throughput, wait p99 and the uncontended pair are judged (against
// c-pthread across machines); none is a gate headline yet: a contended
// lock's throughput on two vCPUs swings with the scheduler more than a
// short trial can average out.
var Metrics = []results.MetricSpec{
	{Key: MTotalMops, Header: "total Mops", Better: results.Higher, Judged: true, Floor: "c-pthread", FloorByImpl: floors,
		Plot: &results.PlotSpec{Kind: results.PlotThreads, Title: "total acquisitions per µs against threads", Axis: "total Mops (all threads)"}},
	{Key: MOverHarness, Header: "over harness", Unit: results.UnitNanos, Better: results.Lower},
	{Key: MKhzMedian, Header: "kHz/thr med", Better: results.Higher},
	{Key: MKhzAvg, Header: "kHz/thr avg", Better: results.Higher},
	{Key: MKhzStddev, Header: "kHz/thr sd", Better: results.Lower},
	{Key: MJain, Header: "Jain", Better: results.Higher},
	{Key: MMinMax, Header: "min/max", Better: results.Higher},
	{Key: MWaitP99, Header: "wait p99", Unit: results.UnitMicros, Better: results.Lower, Judged: true, Floor: "c-pthread", FloorByImpl: floors},
	{Key: MWaitMax, Header: "wait max", Unit: results.UnitMicros, Better: results.Lower},
	{Key: MCPUBusy, Header: "cores busy", Better: results.Lower},
	{Key: MCPUPerAcq, Header: "CPU/acq", Unit: results.UnitNanos, Better: results.Lower},
	{Key: MUncontended, Header: "uncontended", Unit: results.UnitNanos, Better: results.Lower, Judged: true, Floor: "c-pthread", FloorByImpl: floors},
	// The harness floor (Go rows): the loop alone, with an empty lock.
	{Key: MHarness, Header: "harness", Unit: results.UnitNanos, Better: results.Lower, Diagnostic: true},
}

// RwMetrics describes rwlock's figures: read and write throughput
// and the longest writer wait are judged, against c-pthread's rwlock.
var RwMetrics = []results.MetricSpec{
	{Key: MReadMops, Header: "read Mops", Better: results.Higher, Judged: true, Floor: "c-pthread"},
	{Key: MWriteMops, Header: "write Mops", Better: results.Higher, Judged: true, Floor: "c-pthread"},
	{Key: MKhzReader, Header: "kHz/reader med", Better: results.Higher},
	{Key: MKhzWriter, Header: "kHz/writer med", Better: results.Higher},
	{Key: MJainReaders, Header: "Jain readers", Better: results.Higher},
	{Key: MJainWriters, Header: "Jain writers", Better: results.Higher},
	{Key: MWriteWaitMax, Header: "write wait max", Unit: results.UnitMicros, Better: results.Lower, Judged: true, Floor: "c-pthread"},
	{Key: MWriterMin, Header: "least writer", Better: results.Higher},
	{Key: MCPUBusy, Header: "cores busy", Better: results.Lower},
}
