package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The helpers of the plugin tests (plugin_test.go, linux and cgo) and of
// TestRustOriginals (originals_test.go, every platform, skipped without
// its library): built everywhere, so that both files vet on every target.

// wantListed runs 'parkbench list --plugin lib' and fails t for each name
// it does not show.
func wantListed(t *testing.T, lib string, names ...string) {
	t.Helper()
	var out, errb bytes.Buffer
	if code := executeTo([]string{"list", "--plugin", lib}, &out, &errb); code != 0 {
		t.Fatalf("list: exit %d: %s", code, errb.String())
	}
	for _, name := range names {
		if !strings.Contains(out.String(), name) {
			t.Errorf("list --plugin does not show %s", name)
		}
	}
}

// runWithPlugin runs parkbench args with --plugin lib, the result written to
// dir/<command>.json, and returns that file.
func runWithPlugin(t *testing.T, dir, lib string, args []string) []byte {
	t.Helper()
	file := filepath.Join(dir, args[0]+".json")
	args = append(slices.Clone(args), "--plugin", lib, "--out", file, "--quiet")
	var out, errb bytes.Buffer
	if code := executeTo(args, &out, &errb); code != 0 {
		t.Fatalf("parkbench %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
