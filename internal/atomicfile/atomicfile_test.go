package atomicfile

import (
	"os"
	"path/filepath"
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
