package results

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"

	"github.com/parkbench/parkbench/internal/atomicfile"
)

// TimeLayout is the UTC timestamp in recorded file names.
const TimeLayout = "20060102T150405Z"

var recordName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// RecordName is the name a file is recorded under when none is given: its
// experiment's name, or "suite" when it holds several.
func RecordName(f *File) string {
	if len(f.Experiments) == 1 && recordName.MatchString(f.Experiments[0].Name) {
		return f.Experiments[0].Name
	}
	return "suite"
}

// RecordPath returns where f is recorded under dir (the repository's
// results/): dir/<machine slug>/<name>-<UTC start YYYYMMDDTHHMMSSZ>.json.
// name is the experiment or suite ("" = RecordName(f)). It refuses a file
// without a machine slug or start time, and a path that already exists:
// recorded files are never rewritten.
func RecordPath(dir string, f *File, name string) (string, error) {
	if name == "" {
		name = RecordName(f)
	}
	if !recordName.MatchString(name) {
		return "", fmt.Errorf("record name %q: want lower-case letters, digits and dashes", name)
	}
	slug := f.Machine.Slug
	if slug == "" || !recordName.MatchString(slug) {
		return "", fmt.Errorf("cannot record: machine slug %q is not a directory name", slug)
	}
	if f.Started.IsZero() {
		return "", errors.New("cannot record: the result has no start time")
	}
	p := filepath.Join(dir, slug, name+"-"+f.Started.UTC().Format(TimeLayout)+".json")
	if _, err := os.Lstat(p); err == nil {
		return "", fmt.Errorf("%s already exists: recorded results are never rewritten", p)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	return p, nil
}

// Record writes f under dir at RecordPath, creating the machine directory,
// and never replaces an existing file: the temporary file is linked into
// place, which fails if the name was taken meanwhile.
func Record(dir string, f *File, name string) (string, error) {
	p, err := RecordPath(dir, f, name)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return "", err
	}
	if err := WriteNew(p, f); err != nil {
		return "", err
	}
	return p, nil
}

// WriteNew writes f to path like WriteFile, but fails if path exists
// (atomicfile.WriteNew links the finished file into place).
func WriteNew(path string, f *File) error {
	data, err := Encode(f)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteNew(path, data); err != nil {
		if atomicfile.IsExist(err) {
			return fmt.Errorf("%s already exists: recorded results are never rewritten", path)
		}
		return err
	}
	return nil
}
