package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/results/resultstest"
)

func fixtures(t *testing.T) []results.Named {
	t.Helper()
	var out []results.Named
	for _, n := range []string{"v1-latency.json", "v1-herd.json", "v1-timeout.json", "v1-suite.json", "v1-run-quick.json"} {
		p := filepath.Join("..", "results", "testdata", n)
		f, err := results.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, results.Named{Name: p, File: f})
	}
	return out
}

func TestEveryFormat(t *testing.T) {
	files := fixtures(t)
	for _, format := range Formats {
		var buf bytes.Buffer
		if err := RenderFiles(&buf, files, format, Options{}); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if buf.Len() == 0 {
			t.Fatalf("%s: empty", format)
		}
	}
	if err := Render(&bytes.Buffer{}, files[0].File, "yaml", Options{}); err == nil {
		t.Fatal("unknown format accepted")
	}
}

func TestTextShowsEverything(t *testing.T) {
	s := resultstest.Spec{Samples: 100}
	f := resultstest.Suite(s)
	f.Warnings = []string{"load average 3.1 at start"}
	f.Experiments[0].Configs[0].Warnings = []string{"2 waits did not sleep"}
	for _, md := range []bool{false, true} {
		var buf bytes.Buffer
		if err := renderText(&buf, results.Named{Name: "x.json", File: f}, md, Full); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		for _, want := range []string{
			"Intel(R) Xeon(R) Platinum 8375C", "kernel 6.8.0", "virtualization kvm", "clock tsc", "load 0.12 0.30 0.25",
			"GOMAXPROCS 4", "GC off", "median (µs)", "p99 (µs)", "ns/pair (ns)", "spin probe (ns)", "foreign CPU", "1.0%",
			"claim E12-1", "the return value is always N", "] load average", "latency futex/cross-core: 2 waits did not sleep",
			"options: iters=10000", "notify -> first waiter holds the lock (µs) by N", " 64 ",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("md=%v: no %q in\n%s", md, want, out)
			}
		}
		if md && (!strings.Contains(out, "### herd") || !regexp.MustCompile(`\| futex/cross-core +\|`).MatchString(out) || !strings.Contains(out, "✅ holds")) {
			t.Errorf("markdown not fit for a summary:\n%s", out)
		}
	}
}

func TestCSV(t *testing.T) {
	var buf bytes.Buffer
	if err := RenderFiles(&buf, fixtures(t)[:2], "csv", Options{}); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil || len(recs) < 10 || recs[0][0] != "file" || len(recs[1]) != 8 {
		t.Fatalf("csv: %v %v", err, recs[:2])
	}
}

func TestJSONSeveral(t *testing.T) {
	var buf bytes.Buffer
	if err := RenderFiles(&buf, fixtures(t)[:2], "json", Options{}); err != nil {
		t.Fatal(err)
	}
	var fs []*results.File
	if err := json.Unmarshal(buf.Bytes(), &fs); err != nil || len(fs) != 2 {
		t.Fatal(err)
	}
	buf.Reset()
	if err := RenderFiles(&buf, fixtures(t)[:1], "json", Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := results.Decode(buf.Bytes()); err != nil {
		t.Fatal(err)
	}
}

// benchstat reads the output: parse it with golang.org/x/perf/benchfmt, as
// benchstat does, and check one result per round with the machine as config.
func TestBenchstatParses(t *testing.T) {
	f, err := results.ReadFile(filepath.Join("..", "results", "testdata", "v1-suite.json"))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Render(&buf, f, "benchstat", Options{}); err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, e := range f.Experiments {
		for _, c := range e.Configs {
			want += len(c.Rounds)
		}
	}
	r := benchfmt.NewReader(&buf, "suite.txt")
	got := 0
	units := map[string]bool{}
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Fatalf("benchfmt: %v", rec)
		case *benchfmt.Result:
			got++
			if rec.GetConfig("goos") != "linux" || rec.GetConfig("goarch") != "amd64" || !strings.Contains(rec.GetConfig("cpu"), "Xeon") || !strings.HasPrefix(rec.GetConfig("pkg"), "parkbench/") {
				t.Fatalf("config lines lost: %v", rec.Config)
			}
			base, _ := rec.Name.Base(), rec.Name
			if !strings.HasPrefix(string(base), "Latency") && !strings.HasPrefix(string(base), "Selfwake") && !strings.HasPrefix(string(base), "Herd") {
				t.Fatalf("name %s", rec.Name)
			}
			for _, v := range rec.Values {
				units[v.OrigUnit] = true
				units["tidied:"+v.Unit] = true
			}
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("benchfmt read %d results, want one per round: %d", got, want)
	}
	for _, u := range []string{"ns/op", "p99-ns/op", "first-ns/op", "total-ns/op", "tidied:sec/op", "tidied:p99-sec/op"} {
		if !units[u] {
			t.Errorf("no unit %s in %v", u, units)
		}
	}
	if strings.Contains(buf.String(), " ns/op\n") && strings.Contains(buf.String(), "Benchmark Latency") {
		t.Fatal("spaces in names")
	}
}
