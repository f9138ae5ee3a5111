package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/experiments"
	"github.com/parkbench/parkbench/internal/experiments/driver"
)

// aliases are the names for several implementations each command takes
// beside its implementations (list shows the implementations).
var aliases = map[string][]string{"timeout": {"lot"}}

// TestListMatchesAccepted: every name `parkbench list` shows is accepted
// by its command (or refused, with the reason list gives), and the names
// the command knows (the valid names its refusal of an unknown one lists)
// are the listed ones, in order, then its aliases, which it accepts. Each
// name goes through the command line itself (tryName), so the test knows
// no experiment's options.
func TestListMatchesAccepted(t *testing.T) {
	var out, errb bytes.Buffer
	if code := executeTo([]string{"list"}, &out, &errb); code != 0 {
		t.Fatalf("list: exit %d: %s", code, errb.String())
	}
	for _, e := range experiments.Registry {
		if e.Impls == nil {
			continue
		}
		var listed []string
		goroutinesOnly, runsHere := false, false
		for _, im := range e.Impls() {
			goroutinesOnly = goroutinesOnly || im.GoroutinesOnly
			runsHere = runsHere || im.Why == ""
			listed = append(listed, im.Name)
			err := tryName(e, im)
			switch {
			case im.Why == "" && err != nil:
				t.Errorf("%s: list says %s runs here, but its command refuses it: %v", e.Name, im.Name, err)
			case im.Why != "" && err == nil:
				t.Errorf("%s: list says %s does not run here (%s), but its command accepts it", e.Name, im.Name, im.Why)
			}
		}
		// An experiment that does not run here at all (stacks off
		// Linux) refuses before it reads a name: no names to compare.
		if known, ok := validNames(t, e); ok || runsHere {
			if goroutinesOnly {
				more, _ := validNames(t, e, "--participants="+driver.Goroutines)
				for _, n := range more {
					if !slices.Contains(known, n) {
						known = append(known, n)
					}
				}
			}
			if want := append(slices.Clone(listed), aliases[e.Name]...); !slices.Equal(known, want) {
				t.Errorf("%s: the command knows %v, want list's %v and then the aliases %v", e.Name, known, listed, aliases[e.Name])
			}
			for _, a := range aliases[e.Name] {
				if err := tryName(e, driver.ImplInfo{Name: a}); err != nil {
					t.Errorf("%s: alias %s refused: %v", e.Name, a, err)
				}
			}
		}
		section := sectionOf(out.String(), e.Name)
		for _, n := range listed {
			if !strings.Contains(section, "\n  "+n+" ") {
				t.Errorf("%s: %s is not in the printed list", e.Name, n)
			}
		}
	}
}

// implFlagOf is the flag that names e's implementations.
func implFlagOf(e experiments.Entry) string {
	if e.Flag != "" {
		return e.Flag
	}
	return "--impl"
}

// tryName runs `parkbench EXP --impl=NAME` (with --participants=goroutines
// for an implementation that runs only there) with every run's context
// cancelled before the run starts, as if SIGINT had come: options the
// command accepts end interrupted (130) with nothing measured, refused
// ones as bad input (2), whose message it returns.
func tryName(e experiments.Entry, im driver.ImplInfo) error {
	args := []string{e.Name, implFlagOf(e) + "=" + im.Name, "--quiet"}
	if im.GoroutinesOnly {
		args = append(args, "--participants="+driver.Goroutines)
	}
	interrupts.mu.Lock()
	interrupts.signaled = true
	interrupts.mu.Unlock()
	defer func() {
		interrupts.mu.Lock()
		interrupts.signaled = false
		interrupts.mu.Unlock()
	}()
	var out, errb bytes.Buffer
	switch code := executeTo(args, &out, &errb); code {
	case exitInterrupted:
		return nil
	case exitUsage:
		return errors.New(strings.TrimSpace(errb.String()))
	default:
		return fmt.Errorf("%v: exit %d, want %d (accepted, then interrupted) or %d (refused): %s", args, code, exitInterrupted, exitUsage, errb.String())
	}
}

// validNames are the names e's command knows, with more flags: the valid
// names its refusal of an unknown one lists ("...; valid names: a, b, or
// all"); false if it lists none.
func validNames(t *testing.T, e experiments.Entry, more ...string) ([]string, bool) {
	t.Helper()
	var out, errb bytes.Buffer
	if code := executeTo(append([]string{e.Name, implFlagOf(e) + "=no-such-name"}, more...), &out, &errb); code != exitUsage {
		t.Fatalf("%s: an unknown name: exit %d, want %d", e.Name, code, exitUsage)
	}
	msg := strings.Join(strings.Fields(errb.String()), " ")
	_, names, ok := strings.Cut(msg, "valid names: ")
	if !ok {
		return nil, false
	}
	names, _, _ = strings.Cut(names, ", or all")
	return strings.Split(names, ", "), true
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
