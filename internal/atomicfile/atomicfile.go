// Package atomicfile writes files so that a reader never sees half of one
// and an interrupted or failed write leaves nothing behind: the data goes to
// a temporary file in the same directory, is synced, and only then takes
// the final name. Result files and plots are written this way.
//
// Only a regular file (or a new name) is ever replaced. A path naming a
// device, a FIFO or a socket is written into directly, as a shell
// redirection would (`--out /dev/null` discards, `--out /dev/full` fails
// with "no space left on device"), and a symbolic link is followed: the file
// it points to is replaced, the link stays. Errors name the caller's path,
// never the temporary file.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// ErrExist is returned by WriteNew when path already exists.
var ErrExist = fs.ErrExist

// Write writes data to path, replacing a regular file there (rename), or
// writing into a device, FIFO or socket.
func Write(path string, data []byte) error {
	target, special, err := resolve(path)
	if err != nil {
		return err
	}
	if special {
		return writeInto(path, target, data)
	}
	return write(path, target, data, os.Rename)
}

// WriteNew writes data to path and fails with an error wrapping ErrExist if
// path exists, also when another writer takes the name meanwhile: the
// temporary file is hard-linked into place, which never replaces a file.
func WriteNew(path string, data []byte) error {
	return write(path, path, data, os.Link)
}

// Check reports, before any work is done, whether Write(path) could
// succeed: path is not a directory, its directory exists, and a file can be
// created there (it is: a temporary one, removed at once). Commands call it
// before measuring, so that a bad --out fails in a second, not after the run.
func Check(path string) error {
	if path == "" {
		return errors.New("empty path")
	}
	target, special, err := resolve(path)
	if err != nil {
		return err
	}
	if special {
		// A FIFO's open blocks until a reader comes: it is checked when
		// written. A device is opened and closed.
		if fi, err := os.Stat(target); err == nil && fi.Mode()&fs.ModeNamedPipe != 0 {
			return nil
		}
		f, err := os.OpenFile(target, os.O_WRONLY, 0)
		if err != nil {
			return userErr(path, err)
		}
		return f.Close()
	}
	return probeDir(path, filepath.Dir(target))
}

// CheckDir reports whether files can be created under dir, creating
// nothing that stays: dir must be an existing, writable directory. A
// directory that does not exist is refused, not made: a mistyped path
// (--record /nonexistent/results) would otherwise grow a tree of new
// directories where nobody looks; subdirectories of dir are made later.
func CheckDir(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: no such directory (create it first)", dir)
	case err != nil:
		return userErr(dir, err)
	case !fi.IsDir():
		return fmt.Errorf("%s: not a directory", dir)
	}
	return probeDir(dir, dir)
}

// resolve follows symbolic links from path and says what the write would
// land on: target is the final name, special says it is a device, FIFO or
// socket (written into, never replaced). A directory is an error.
func resolve(path string) (target string, special bool, err error) {
	target = path
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		t, err := filepath.EvalSymlinks(path)
		switch {
		case err == nil:
			target = t
		case errors.Is(err, fs.ErrNotExist):
			// A dangling link: the file it names is created.
			l, err := os.Readlink(path)
			if err != nil {
				return "", false, userErr(path, err)
			}
			if !filepath.IsAbs(l) {
				l = filepath.Join(filepath.Dir(path), l)
			}
			target = l
		default:
			return "", false, userErr(path, err)
		}
	}
	fi, err := os.Stat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return target, false, nil
	case err != nil:
		return "", false, userErr(path, err)
	case fi.IsDir():
		return "", false, fmt.Errorf("%s: is a directory", path)
	case fi.Mode().IsRegular():
		return target, false, nil
	}
	return target, true, nil
}

// probeDir creates and removes a temporary file in dir; errors name path.
func probeDir(path, dir string) error {
	tmp, err := os.CreateTemp(dir, ".parkbench-check-*")
	if err != nil {
		return userErr(path, err)
	}
	name := tmp.Name()
	tmp.Close()
	return os.Remove(name)
}

func write(path, target string, data []byte, place func(oldpath, newpath string) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".tmp-*")
	if err != nil {
		return userErr(path, err)
	}
	name := tmp.Name()
	// After a rename the temporary name is gone and Remove is a no-op;
	// after a link (or any failure) it removes the temporary file.
	defer os.Remove(name)
	if err := fill(tmp, data); err != nil {
		tmp.Close()
		return userErr(path, err)
	}
	if err := tmp.Close(); err != nil {
		return userErr(path, err)
	}
	if err := place(name, target); err != nil {
		return userErr(path, err)
	}
	return nil
}

// writeInto writes data into an existing device, FIFO or socket.
func writeInto(path, target string, data []byte) error {
	f, err := os.OpenFile(target, os.O_WRONLY, 0)
	if err != nil {
		return userErr(path, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return userErr(path, err)
	}
	return userErrOrNil(path, f.Close())
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

// userErr replaces the path inside an *fs.PathError or *os.LinkError (often
// the temporary file's) with the caller's path, keeping the cause, so that
// errors.Is still sees fs.ErrExist and friends.
func userErr(path string, err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &le):
		err = le.Err
	case errors.As(err, &pe):
		err = pe.Err
	}
	return &fs.PathError{Op: "write", Path: path, Err: err}
}

func userErrOrNil(path string, err error) error {
	if err == nil {
		return nil
	}
	return userErr(path, err)
}

// IsExist reports whether err says the target of WriteNew existed.
func IsExist(err error) bool { return errors.Is(err, fs.ErrExist) }
