// Package atomicfile writes files so that a reader never sees half of one
// and an interrupted or failed write leaves nothing behind: the data goes to
// a temporary file in the same directory, is synced, and only then takes
// the final name. Result files and plots are written this way.
package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// ErrExist is returned by WriteNew when path already exists.
var ErrExist = fs.ErrExist

// Write writes data to path, replacing any file there (rename).
func Write(path string, data []byte) error {
	return write(path, data, os.Rename)
}

// WriteNew writes data to path and fails with an error wrapping ErrExist if
// path exists, also when another writer takes the name meanwhile: the
// temporary file is hard-linked into place, which never replaces a file.
func WriteNew(path string, data []byte) error {
	return write(path, data, os.Link)
}

func write(path string, data []byte, place func(oldpath, newpath string) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	// After a rename the temporary name is gone and Remove is a no-op;
	// after a link (or any failure) it removes the temporary file.
	defer os.Remove(name)
	if err := fill(tmp, data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return place(name, path)
}

func fill(tmp *os.File, data []byte) error {
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	// CreateTemp makes 0600 files; results and plots are for everyone to
	// read. Windows has no such modes.
	if err := tmp.Chmod(0o644); err != nil && runtime.GOOS != "windows" {
		return err
	}
	return tmp.Sync()
}

// IsExist reports whether err says the target of WriteNew existed.
func IsExist(err error) bool { return errors.Is(err, fs.ErrExist) }
