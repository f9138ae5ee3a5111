package results

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Baseline is the recorded result a new one is compared with, and why that
// one.
type Baseline struct {
	Path string
	File *File
	// Why says how it was chosen: its machine class, what it holds, when
	// it was recorded, and how many candidates there were.
	Why string
}

// ErrNoBaseline says a results directory holds no recorded result of the
// new result's machine class (other than the new result itself).
var ErrNoBaseline = errors.New("no baseline")

// SameRun reports whether two files are one run (a recorded copy of the
// other): the same content, as Encode writes it (the start time to the
// nanosecond, the machine, every round). A file is never its own baseline.
func SameRun(a, b *File) bool {
	if !a.Started.Equal(b.Started) || a.Machine.Hostname != b.Machine.Hostname || !slices.Equal(a.Command, b.Command) {
		return false
	}
	ea, errA := Encode(a)
	eb, errB := Encode(b)
	return errA == nil && errB == nil && bytes.Equal(ea, eb)
}

// FindBaseline picks the baseline of f among the results recorded under dir
// (dir/<slug>/*.json, dir/*.json): of f's machine class (SameClass, so a
// class recorded under an older slug rule is still found), never f's own
// run (SameRun: --record files it before the comparison), preferring files
// that hold every experiment f holds, the newest first. A file that does
// not decode is skipped and named in skipped. With no candidate the error
// wraps ErrNoBaseline and says what was looked at.
func FindBaseline(dir string, f *File) (b *Baseline, skipped []string, err error) {
	var paths []string
	for _, pat := range []string{"*.json", filepath.Join("*", "*.json")} {
		m, err := filepath.Glob(filepath.Join(dir, pat))
		if err != nil {
			return nil, nil, err
		}
		paths = append(paths, m...)
	}
	if err := StatDir(dir); err != nil {
		return nil, nil, err
	}
	type cand struct {
		path  string
		f     *File
		why   string
		holds bool
	}
	var cands []cand
	self := 0
	for _, p := range paths {
		c, err := ReadFile(p)
		if err != nil {
			skipped = append(skipped, err.Error())
			continue
		}
		same, why := SameClass(c.Machine, f.Machine)
		if !same {
			continue
		}
		if SameRun(c, f) {
			self++
			continue
		}
		cands = append(cands, cand{p, c, why, holdsAll(c, f)})
	}
	class := Slug(f.Machine)
	if len(cands) == 0 {
		msg := fmt.Sprintf("no result of machine class %s under %s", class, dir)
		if self > 0 {
			msg += " but this run's own recorded copy"
		}
		return nil, skipped, fmt.Errorf("%w: %s", ErrNoBaseline, msg)
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].holds != cands[j].holds {
			return cands[i].holds
		}
		if !cands[i].f.Started.Equal(cands[j].f.Started) {
			return cands[i].f.Started.After(cands[j].f.Started)
		}
		// Recorded names end in the UTC start time: the later name.
		return filepath.Base(cands[i].path) > filepath.Base(cands[j].path)
	})
	c := cands[0]
	what := "the newest result that holds " + strings.Join(names(f), ", ")
	if !c.holds {
		what = "the newest result (none holds all of " + strings.Join(names(f), ", ") + ")"
	}
	why := fmt.Sprintf("%s, recorded %s, of %d candidates; %s", what, c.f.Started.UTC().Format("2006-01-02 15:04 UTC"), len(cands), c.why)
	if self > 0 {
		why += "; this run's own recorded copy skipped"
	}
	return &Baseline{Path: c.path, File: c.f, Why: why}, skipped, nil
}

func names(f *File) []string {
	var out []string
	for _, e := range f.Experiments {
		out = append(out, e.Name)
	}
	return out
}

// holdsAll reports whether base has every experiment of f.
func holdsAll(base, f *File) bool {
	have := names(base)
	for _, n := range names(f) {
		if !slices.Contains(have, n) {
			return false
		}
	}
	return true
}

// StatDir checks that dir is a directory that can be read, with an error
// that names dir in the same words on every OS ("DIR: no such file or
// directory"), not the system call that failed (stat on Unix,
// GetFileAttributesEx on Windows). A file is refused: globbing DIR/*.json
// under a file finds nothing, and "0 files under FILE" read as a verdict.
func StatDir(dir string) error {
	fi, err := os.Stat(dir)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", dir, pe.Err)
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s: %w: give the directory of recorded results (results/), whose files are DIR/<machine>/*.json", dir, errNotDir)
	}
	return nil
}

// errNotDir is StatDir's error for a path that is not a directory.
var errNotDir = errors.New("not a directory")
