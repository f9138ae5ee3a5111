package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteReplacesAndLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.json")
	for _, data := range []string{"one", "two"} {
		if err := Write(p, []byte(data)); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(p); string(got) != data {
			t.Fatalf("read %q, want %q", got, data)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d entries in the directory, want only the file", len(entries))
	}
}

func TestWriteNewNeverReplaces(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.json")
	if err := WriteNew(p, []byte("first")); err != nil {
		t.Fatal(err)
	}
	err := WriteNew(p, []byte("second"))
	if !IsExist(err) {
		t.Fatalf("second WriteNew: %v, want an exists error", err)
	}
	if got, _ := os.ReadFile(p); string(got) != "first" {
		t.Errorf("file now holds %q, want the first write", got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d entries in the directory, want only the file", len(entries))
	}
}

func TestWriteFailsCleanly(t *testing.T) {
	if err := Write(filepath.Join(t.TempDir(), "no-such-dir", "f"), []byte("x")); err == nil {
		t.Error("write into a missing directory succeeded")
	}
}

// TestWriteFollowsSymlinks: the file a link points to is replaced, the link
// stays a link.
func TestWriteFollowsSymlinks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.json")
	link := filepath.Join(dir, "link.json")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("target.json", link); err != nil {
		t.Skip("symlink:", err)
	}
	if err := Write(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the link was replaced by a file")
	}
	if got, _ := os.ReadFile(target); string(got) != "new" {
		t.Fatalf("target holds %q, want new", got)
	}
	// A dangling link creates the file it names.
	dangling := filepath.Join(dir, "dangling.json")
	if err := os.Symlink("made.json", dangling); err != nil {
		t.Fatal(err)
	}
	if err := Write(dangling, []byte("made")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "made.json")); string(got) != "made" {
		t.Fatalf("dangling link target holds %q", got)
	}
}

func TestWriteRefusesDirectory(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []func() error{func() error { return Write(dir, []byte("x")) }, func() error { return Check(dir) }} {
		if err := f(); err == nil || !strings.Contains(err.Error(), "is a directory") {
			t.Fatalf("got %v, want 'is a directory'", err)
		}
	}
	if fi, _ := os.Stat(dir); !fi.IsDir() {
		t.Fatal("the directory was replaced")
	}
}

// TestErrorsNameTheUsersPath: never the temporary file.
func TestErrorsNameTheUsersPath(t *testing.T) {
	p := filepath.Join(t.TempDir(), "missing", "out.json")
	for name, err := range map[string]error{"Write": Write(p, []byte("x")), "Check": Check(p), "WriteNew": WriteNew(p, []byte("x"))} {
		if err == nil || !strings.Contains(err.Error(), p) || strings.Contains(err.Error(), ".tmp-") {
			t.Errorf("%s: %v, want an error naming %s and no temporary file", name, err, p)
		}
	}
}

func TestCheckDir(t *testing.T) {
	dir := t.TempDir()
	if err := CheckDir(dir); err != nil {
		t.Errorf("CheckDir of a writable directory: %v", err)
	}
	// A directory that does not exist is refused, not made later
	// (run --record /nonexistent/results once made /nonexistent).
	for _, missing := range []string{filepath.Join(dir, "not"), filepath.Join(dir, "not", "yet")} {
		if err := CheckDir(missing); err == nil || !strings.Contains(err.Error(), "no such directory") {
			t.Errorf("CheckDir of a missing directory %s: %v", missing, err)
		}
	}
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	if err := CheckDir(filepath.Join(file, "sub")); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("CheckDir under a file: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("CheckDir left %d entries, want only the file", len(entries))
	}
	if os.Geteuid() != 0 {
		ro := filepath.Join(dir, "ro")
		os.Mkdir(ro, 0o555)
		if err := CheckDir(ro); err == nil {
			t.Error("CheckDir of a read-only directory succeeded")
		}
		if err := Check(filepath.Join(ro, "x.json")); err == nil {
			t.Error("Check in a read-only directory succeeded")
		}
	}
}
