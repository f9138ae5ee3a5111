// Package results defines parkbench's result file: one versioned JSON
// document per run, holding the machine, the options, every round of every
// configuration with its HDR histogram, the probes, the claims and the
// warnings. Experiments return *Experiment values; commands wrap them in a
// File and write it (WriteFile; Record under results/<slug>/); report,
// compare and plot read Files back (ReadFile, which validates).
//
// Figures are kept in Metrics maps keyed by the M* names, so that report and
// compare treat every experiment the same way. Times are nanoseconds.
//
// # Format, version 1
//
// The document is a JSON object; its JSON Schema is schema/v1.json (embedded:
// SchemaJSON), and Decode rejects a document that does not match the schema
// of its version. Readers ignore properties they do not know: fields may be
// added within a version; a change an older reader would misread (a renamed
// or retyped field, a changed unit) bumps Version, and fixtures of every
// version stay under testdata/ so that old files stay readable.
//
//	format        "parkbench-result": what this is
//	version       1: the format version (Decode reads 1..Version)
//	tool          the build: version (module version or "devel"), commit
//	              (vcs.revision), modified (dirty tree), go_version
//	started       RFC 3339 UTC time the run started; finished: when it ended
//	command       the command line, "parkbench" first
//	machine       where it ran:
//	  hostname, slug          slug names the machine class: results/<slug>/
//	  os, arch                GOOS, GOARCH
//	  kernel                  uname release (Linux)
//	  cpu_model, logical_cpus /proc/cpuinfo model name, runtime.NumCPU
//	  cpu_vendor, cpu_family, cpu_model_number
//	                          x86 CPUID vendor, family, model (added within
//	                          version 1; part of the slug, slug.go)
//	  virtualization          "" or "none" on bare metal, else the hypervisor
//	                          (kvm, xen, microsoft, vmware, ...) or "vm"
//	  clock_source            current kernel clocksource (tsc, kvm-clock, ...)
//	  cpu_governor            cpufreq scaling governor of cpu0, when readable
//	  go_version              Go runtime of the build
//	  load_avg                1, 5, 15-minute load averages at the start
//	experiments   one object per experiment run:
//	  name        latency, selfwake, herd, timeout, stacks, lock or rwlock
//	  options     the options as given (string values)
//	  runtime     gomaxprocs, gc_percent (-1: GC off while measuring),
//	              gc_cycles (GCs inside measured windows), lock_os_thread,
//	              syscall_mode ("syscall" or "raw"), allocs_per_op,
//	              cgo_enabled
//	  configs     one object per implementation x placement x parameters:
//	    key        impl[/placement][/k=v...]: identifies it across files
//	    impl, kind, placement, params   what it is
//	    probe      measured right before it: spin_one_way_ns (pinned spin
//	               ping-pong one-way median; -1 when not measurable),
//	               syscall_ns (one trivial syscall), cpus
//	    foreign    CPU other processes used meanwhile: fraction (of all CPU
//	               time; -1 when not measured), same_cpu_fraction (unpinned:
//	               waker and woken on one CPU; -1 when not measured)
//	    rounds     every round (latency, selfwake, timeout) or repeat (herd):
//	      metrics    name -> value, names as the M* constants (ns for times)
//	      histogram  the round's samples (ns), hdrhistogram-go V2 compressed
//	                 encoding, base64 (EncodeHist / Round.Hist); optional
//	    summary    median over rounds of each metric
//	    warnings, detail   per-configuration warnings and text
//	  claims      the study's claims evaluated on these numbers: id,
//	              statement, verdict (holds, does not hold, not evaluated),
//	              evidence
//	  warnings, notes
//	  metrics     the metric description (MetricSpec, metrics.go; added
//	              within version 1, files without it read with Legacy):
//	              key, header, unit, better, main, judged, headline,
//	              diagnostic, benchstat, floor, floor_by_impl, pivot, plot
//	warnings      run-wide warnings
package results
