package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/experiments"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/experiments/herd"
	"github.com/parkbench/parkbench/internal/experiments/latency"
	"github.com/parkbench/parkbench/internal/experiments/loaded"
	"github.com/parkbench/parkbench/internal/experiments/lock"
	"github.com/parkbench/parkbench/internal/experiments/selfwake"
	"github.com/parkbench/parkbench/internal/experiments/spin"
	"github.com/parkbench/parkbench/internal/experiments/stacks"
	"github.com/parkbench/parkbench/internal/experiments/timeout"
	"github.com/parkbench/parkbench/internal/experiments/wake"
)

// accepts is, per experiment that takes --impl (stacks: --mech), whether
// its options accept one name, and every name its option resolution knows.
var accepts = map[string]struct {
	validate func(name string) error
	names    func() []string
}{
	"latency": {func(n string) error {
		o := latency.QuickLatencyOptions()
		o.Impls = []string{n}
		o.Placements = []string{"unpinned"}
		if slices.ContainsFunc(latency.GoroutineImpls(), func(im driver.ImplInfo) bool { return im.Name == n }) {
			o.Participants = []string{driver.Goroutines}
		}
		return o.Validate()
	}, func() []string {
		names := latency.ImplNames()
		for _, im := range latency.GoroutineImpls() {
			names = append(names, im.Name)
		}
		return names
	}},
	"selfwake": {withImpl(selfwake.QuickOptions, "Impls"), selfwake.ImplNames},
	"herd":     {withImpl(herd.QuickOptions, "Impls"), herd.ImplNames},
	"timeout":  {withImpl(timeout.QuickOptions, "Impls"), timeout.ImplNames},
	"lock":     {withImpl(lock.QuickOptions, "Impls"), lock.ImplNames},
	"rwlock":   {withImpl(lock.QuickRwOptions, "Impls"), lock.RwImplNames},
	"wake":     {withImpl(wake.QuickOptions, "Impls"), wake.ImplNames},
	"loaded":   {withImpl(loaded.QuickOptions, "Impls"), loaded.ImplNames},
	"spin":     {withImpl(spin.QuickOptions, "Impls"), spin.ImplNames},
	"stacks":   {withImpl(stacks.DefaultOptions, "Mechanisms"), stacks.ImplNames},
}

// withImpl is an experiment's check of one name: its options from opts
// with the list field (Impls, stacks' Mechanisms) set to the name alone.
func withImpl[O interface{ Validate() error }](opts func() O, field string) func(string) error {
	return func(n string) error {
		o := opts()
		reflect.ValueOf(&o).Elem().FieldByName(field).Set(reflect.ValueOf([]string{n}))
		return o.Validate()
	}
}

// TestListMatchesAccepted: every name `parkbench list` shows is accepted by
// its experiment here (or refused with the reason list gives), and every
// name an experiment knows is listed under it.
func TestListMatchesAccepted(t *testing.T) {
	var out, errb bytes.Buffer
	if code := executeTo([]string{"list"}, &out, &errb); code != 0 {
		t.Fatalf("list: exit %d: %s", code, errb.String())
	}
	for _, e := range experiments.Registry {
		if e.Impls == nil {
			continue
		}
		acc, ok := accepts[e.Name]
		if !ok {
			t.Errorf("%s: lists implementations but the test does not know its options", e.Name)
			continue
		}
		var listed []string
		for _, im := range e.Impls() {
			listed = append(listed, im.Name)
			err := acc.validate(im.Name)
			switch {
			case im.Why == "" && err != nil:
				t.Errorf("%s: list says %s runs here, but its options refuse it: %v", e.Name, im.Name, err)
			case im.Why != "" && err == nil:
				t.Errorf("%s: list says %s does not run here (%s), but its options accept it", e.Name, im.Name, im.Why)
			}
		}
		if known := acc.names(); !slices.Equal(listed, known) {
			t.Errorf("%s: list shows %v, the experiment knows %v", e.Name, listed, known)
		}
		section := sectionOf(out.String(), e.Name)
		for _, n := range listed {
			if !strings.Contains(section, "\n  "+n+" ") {
				t.Errorf("%s: %s is not in the printed list", e.Name, n)
			}
		}
	}
}

// sectionOf is the part of list's output about experiment name's
// implementations, with the section of the experiment it refers to for
// the rest ("selfwake --impl: every latency implementation above, and").
func sectionOf(out, name string) string {
	_, after, _ := strings.Cut(out, "\n"+name+" --")
	section, _, _ := strings.Cut(after, "\n\n")
	head, _, _ := strings.Cut(section, "\n")
	if _, ref, ok := strings.Cut(head, ": every "); ok {
		exp, _, _ := strings.Cut(ref, " implementation above")
		section += sectionOf(out, exp)
	}
	return section
}

// TestListGolden renders a fixed registry, so the golden file holds the
// layout and not this machine's availability.
func TestListGolden(t *testing.T) {
	reg := []experiments.Entry{
		{Name: "latency", Summary: "E12: ping-pong wake latency", Impls: func() []driver.ImplInfo {
			return []driver.ImplInfo{
				{Name: "futex", Kind: "thread", Summary: "FUTEX_WAIT/FUTEX_WAKE"},
				{Name: "waitonaddress", Kind: "thread", Summary: "WaitOnAddress", Why: "Windows only"},
			}
		}},
		// Every latency implementation and one more: only the other is
		// listed.
		{Name: "selfwake", Summary: "E12 reverse check", Impls: func() []driver.ImplInfo {
			return []driver.ImplInfo{
				{Name: "syscall", Kind: "reference", Summary: "one getppid per pair"},
				{Name: "futex", Kind: "thread", Summary: "FUTEX_WAIT/FUTEX_WAKE"},
				{Name: "waitonaddress", Kind: "thread", Summary: "WaitOnAddress", Why: "Windows only"},
			}
		}},
		// One latency implementation (as under latency) and a long
		// description, wrapped under its column.
		{Name: "timeout", Summary: "how late each park-until returns", Impls: func() []driver.ImplInfo {
			return []driver.ImplInfo{
				{Name: "futex", Kind: "thread", Summary: "FUTEX_WAIT/FUTEX_WAKE"},
				{Name: "nanosleep", Kind: "reference", Summary: strings.Repeat("the kernel's own timed sleep, ", 6) + "the floor"},
			}
		}},
		{Name: "stacks", Summary: "where a blocked thread sleeps", Impls: func() []driver.ImplInfo {
			return []driver.ImplInfo{{Name: "lot-mutex", Kind: "lot", Summary: "a thread in lot.Mutex.Lock"}}
		}, Flag: "--mech"},
		{Name: "run", Summary: "the suite"},
	}
	var out bytes.Buffer
	if err := renderList(&out, "os/arch", "futex", reg); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "list.golden", out.Bytes())
}

// checkGolden compares got with testdata/name, or rewrites it with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/cli -update)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s changed; got:\n%s", path, got)
	}
}
