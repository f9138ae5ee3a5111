//go:build linux

package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestWriteNeverReplacesADevice: `--out /dev/full` once replaced the device
// with a JSON file (as root). A device is written into, never renamed over.
func TestWriteNeverReplacesADevice(t *testing.T) {
	if err := Write("/dev/null", []byte("discarded")); err != nil {
		t.Fatalf("write to /dev/null: %v", err)
	}
	err := Write("/dev/full", []byte("x"))
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "/dev/full") {
		t.Fatalf("write to /dev/full = %v, want ENOSPC naming /dev/full", err)
	}
	for _, dev := range []string{"/dev/null", "/dev/full"} {
		fi, err := os.Stat(dev)
		if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
			t.Fatalf("%s is no longer a character device: %v %v", dev, fi.Mode(), err)
		}
		if err := Check(dev); err != nil {
			t.Errorf("Check(%s) = %v", dev, err)
		}
	}
}

func TestWriteIntoFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	if err := Check(p); err != nil {
		t.Fatalf("Check(fifo) = %v", err)
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(p)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- string(b)
	}()
	if err := Write(p, []byte("through the pipe")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through the pipe" {
		t.Fatalf("reader got %q", s)
	}
	if fi, _ := os.Lstat(p); fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced: %v", fi.Mode())
	}
}
