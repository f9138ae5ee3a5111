package loaded

import "github.com/parkbench/parkbench/internal/results"

// Metric names (summary keys: the median over rounds).
const (
	MWakeP50    = "wakeup_p50_ns"
	MWakeP90    = "wakeup_p90_ns"
	MWakeP99    = "wakeup_p99_ns"
	MWakeP999   = "wakeup_p999_ns"
	MWakeMax    = "wakeup_max_ns"
	MWakeups    = "wakeups"
	MReqP50     = "request_p50_ns"
	MReqP90     = "request_p90_ns"
	MReqP99     = "request_p99_ns"
	MReqP999    = "request_p999_ns"
	MReqMax     = "request_max_ns"
	MRequests   = "requests"
	MSvcP50     = "service_p50_ns"
	MSvcP99     = "service_p99_ns"
	MRPS        = "rps"
	MOffered    = "offered_rps"
	MDropped    = "dropped"
	MUnfinished = "unfinished"
	MCswPerReq  = "ctxsw_per_request"
	MCPUBusy    = "cpu_busy_cores"
	MWorkers    = "workers"
	MLoad       = "load_pct"
)

// The floor of every mechanism is schbench's own, the raw futex
// handshake, at the same load and oversubscription in the same run.
var floors = map[string]string{"futex": ""}

func us(key, header string) results.MetricSpec {
	return results.MetricSpec{Key: key, Header: header, Unit: results.UnitMicros, Better: results.Lower}
}

func diag(m results.MetricSpec) results.MetricSpec { m.Diagnostic = true; return m }

// Metrics describes loaded's figures (results.MetricSpec), in table order.
// The p99 wakeup latency is the main figure (the collapse table's) and is
// plotted against the load with the p99 request latency; the median wakeup
// latency is the gate's headline (a p99 from a short trial is too noisy to
// gate on), judged as a ratio to futex's in the same run.
var Metrics = func() []results.MetricSpec {
	p50 := us(MWakeP50, "wake p50")
	p50.Judged, p50.Headline, p50.Benchstat, p50.Floor, p50.FloorByImpl = true, true, "ns/op", "futex", floors
	p99 := us(MWakeP99, "wake p99")
	p99.Main, p99.Judged, p99.Benchstat, p99.Floor, p99.FloorByImpl = true, true, "p99-ns/op", "futex", floors
	p99.Plot = &results.PlotSpec{Kind: results.PlotParam, Param: "load", Title: "p99 wakeup latency against the offered load", Axis: "p99 wakeup latency (µs)"}
	req99 := us(MReqP99, "req p99")
	req99.Judged, req99.Benchstat = true, "req-p99-ns/op"
	req99.Plot = &results.PlotSpec{Kind: results.PlotParam, Param: "load", Title: "p99 request latency (intended start -> done) against the offered load", Axis: "p99 request latency (µs)"}
	return []results.MetricSpec{
		p50, us(MWakeP90, "wake p90"), p99, us(MWakeP999, "wake p99.9"),
		us(MReqP50, "req p50"), us(MReqP90, "req p90"), req99, us(MReqP999, "req p99.9"),
		{Key: MRPS, Header: "req/s", Better: results.Higher, Judged: true, Benchstat: "req/s"},
		{Key: MOffered, Header: "offered/s", Better: results.Higher},
		{Key: MCPUBusy, Header: "cores busy", Better: results.Lower},
		{Key: MCswPerReq, Header: "csw/req", Better: results.Lower},
		{Key: MDropped, Header: "dropped", Better: results.Lower},
		diag(results.MetricSpec{Key: MUnfinished, Header: "unfinished", Better: results.Lower}),
		diag(us(MWakeMax, "wake max")), diag(us(MReqMax, "req max")),
		diag(us(MSvcP50, "service p50")), diag(us(MSvcP99, "service p99")),
		diag(results.MetricSpec{Key: MWakeups, Header: "wakeups", Better: results.Higher}),
		diag(results.MetricSpec{Key: MRequests, Header: "requests", Better: results.Higher}),
		diag(results.MetricSpec{Key: MWorkers, Header: "workers", Better: results.Lower}),
		diag(results.MetricSpec{Key: MLoad, Header: "load %", Better: results.Lower}),
	}
}()
