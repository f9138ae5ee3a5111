package cli

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The tests' expected texts hold Linux's words for a missing file or
// directory, "no such file or directory". Other systems say it their own
// way (Windows: "The system cannot find the file specified."; Wine: "File
// not found." and "Path not found."): asLinuxWords rewrites this system's
// words into Linux's, so one golden file holds everywhere. On Linux it
// changes nothing.
func asLinuxWords(t *testing.T, s string) string {
	t.Helper()
	dir := tempDir(t)
	const linux = "no such file or directory"
	for _, p := range []string{filepath.Join(dir, "missing"), filepath.Join(dir, "missing", "x")} {
		_, err := os.Open(p)
		var pe *fs.PathError
		if !errors.As(err, &pe) {
			t.Fatalf("open %s: %v, want a *fs.PathError", p, err)
		}
		if w := pe.Err.Error(); w != linux {
			s = strings.ReplaceAll(s, w, linux)
		}
	}
	return s
}

// tempDir is t.TempDir, except that under Wine, whose ntdll lacks the
// POSIX-semantics delete Go's os.RemoveAll uses on Windows ("Invalid
// function"), a directory that cannot be removed is logged, not failed:
// the test's result is about parkbench, not the emulator's file system.
func tempDir(t *testing.T) string {
	t.Helper()
	if runtime.GOOS != "windows" {
		return t.TempDir()
	}
	dir, err := os.MkdirTemp("", "parkbench-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(dir); err != nil {
			t.Logf("temp dir left behind: %v", err)
		}
	})
	return dir
}
