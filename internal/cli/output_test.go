package cli

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/parkbench/parkbench/internal/results"
)

// failingWriter fails every write, as stdout on a full disk or /dev/full.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) {
	return 0, &os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.ENOSPC}
}

// TestStdoutWriteErrors: report, compare, list and a measuring command all
// exit 1 when stdout cannot be written (they once exited 0 with > /dev/full).
func TestStdoutWriteErrors(t *testing.T) {
	f := fixturePath("v1-latency.json")
	for _, args := range [][]string{
		{"report", f},
		{"compare", f, f},
		{"list"},
		{"selfwake", "--impl=" + sleeper(t), "--quick", "--quiet"},
	} {
		var errb bytes.Buffer
		code := executeTo(args, failingWriter{}, &errb)
		if code != exitFailed || !strings.Contains(errb.String(), "no space left on device") {
			t.Errorf("parkbench %s > /dev/full: exit %d, stderr %q; want exit 1 naming the write error", strings.Join(args, " "), code, errb.String())
		}
	}
}

// TestOutputPathsCheckedFirst: a bad --out or --record fails at once with
// exit 2, before anything is measured (they once failed after a 25 s run).
func TestOutputPathsCheckedFirst(t *testing.T) {
	dir := tempDir(t)
	file := filepath.Join(dir, "a-file")
	os.WriteFile(file, []byte("x"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--quick", "--record", file}, "not a directory"},
		{[]string{"run", "--quick", "--record="}, "--record is empty"},
		{[]string{"latency", "--quick", "--out", dir}, "is a directory"},
		{[]string{"herd", "--quick", "--out="}, "--out is empty"},
		{[]string{"timeout", "--quick", "--out", filepath.Join(dir, "missing", "x.json")}, "no such file or directory"},
		{[]string{"plot", "--out", filepath.Join(dir, "missing", "x.svg"), fixturePath("v1-latency.json")}, "no such file or directory"},
		{[]string{"herd", "--waiters=1,1"}, "names 1 twice"},
		{[]string{"latency", "--gap=0,0"}, "names 0 twice"},
		{[]string{"timeout", "--deadlines=1ms,1000us"}, "(1ms and 1000us)"},
		{[]string{"timeout", "--timerslack=default,default"}, "names default twice"},
		{[]string{"herd", "--lock-held=true,t"}, "(true and t)"},
		{[]string{"herd", "--notify=notify-all,notify-all"}, "names notify-all twice"},
		{[]string{"herd", "--waiters=01,1"}, "(01 and 1)"},
		{[]string{"lock", "--lot-parker=futex,futex"}, "names futex twice"},
		{[]string{"plot", "--impl=futex,futex", fixturePath("v1-latency.json")}, "names futex twice"},
		{[]string{"plot", "--config=n=64,n=64", fixturePath("v1-latency.json")}, "names n=64 twice"},
	} {
		var out, errb bytes.Buffer
		code := executeTo(tc.args, &out, &errb)
		if code != exitUsage || !strings.Contains(asLinuxWords(t, errb.String()), tc.want) || out.Len() != 0 {
			t.Errorf("parkbench %s: exit %d, stderr %q, stdout %d bytes; want exit 2 saying %q and nothing on stdout",
				strings.Join(tc.args, " "), code, errb.String(), out.Len(), tc.want)
		}
	}
	// Read-only directories are POSIX permissions (Windows has no
	// Geteuid either: it returns -1).
	if os.Geteuid() > 0 {
		ro := filepath.Join(dir, "ro")
		os.Mkdir(ro, 0o555)
		for _, args := range [][]string{
			{"selfwake", "--out", filepath.Join(ro, "x.json")},
			{"run", "--quick", "--record", ro},
		} {
			if code := executeTo(args, new(bytes.Buffer), new(bytes.Buffer)); code != exitUsage {
				t.Errorf("parkbench %s: exit %d, want 2", strings.Join(args, " "), code)
			}
		}
	}
}

// TestOutToDevicesAndStdout: --out never replaces a device (as root,
// --out /dev/full once replaced the device with a JSON file); --out -
// writes the result file to stdout.
func TestOutToDevicesAndStdout(t *testing.T) {
	impl := sleeper(t)
	var out, errb bytes.Buffer
	if runtime.GOOS != "windows" {
		if code := executeTo([]string{"selfwake", "--impl=" + impl, "--quick", "--quiet", "--out", "/dev/null"}, &out, &errb); code != exitOK {
			t.Fatalf("--out /dev/null: exit %d: %s", code, errb.String())
		}
		if st, err := os.Stat("/dev/null"); err == nil && st.Mode().IsRegular() {
			t.Fatal("/dev/null became a regular file")
		}
		out.Reset()
		errb.Reset()
	}
	if code := executeTo([]string{"selfwake", "--impl=" + impl, "--quick", "--quiet", "--out", "-"}, &out, &errb); code != exitOK {
		t.Fatalf("--out -: exit %d: %s", code, errb.String())
	}
	if _, err := results.Decode(out.Bytes()); err != nil {
		t.Fatalf("--out - did not put one result file on stdout: %v\n%s", err, out.String())
	}
	if _, err := os.Stat("-"); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("--out - wrote a file named -")
	}
}
