package results

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/parkbench/parkbench/internal/atomicfile"
)

// errRecorded says a recorded file already has the name.
var errRecorded = errors.New("already exists: recorded results are never rewritten")

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

// Recordable refuses a machine whose results are never filed as baselines:
// one under Wine (virtualization "wine-X", internal/machine), which is not
// Windows (its ntdll and wineserver implement the waits; timings are Wine's
// and Linux's). Commands check it before a run, RecordPath again.
func Recordable(m Machine) error {
	if strings.HasPrefix(m.Virtualization, "wine") {
		return fmt.Errorf("cannot record (virtualization %q): made under Wine: not a Windows baseline; use --out", m.Virtualization)
	}
	return nil
}

// RecordPath returns where f is recorded under dir (the repository's
// results/): dir/<machine slug>/<name>-<UTC start YYYYMMDDTHHMMSSZ>.json.
// name is the experiment or suite ("" = RecordName(f)). It refuses a file
// without a machine slug or start time, one made under Wine (Wine is not
// Windows: its timings are Wine's and Linux's, never a Windows baseline),
// and a path that already exists: recorded files are never rewritten.
func RecordPath(dir string, f *File, name string) (string, error) {
	if name == "" {
		name = RecordName(f)
	}
	if !recordName.MatchString(name) {
		return "", fmt.Errorf("record name %q: want lower-case letters, digits and dashes", name)
	}
	if err := Recordable(f.Machine); err != nil {
		return "", err
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
		return p, fmt.Errorf("%s %w", p, errRecorded)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	return p, nil
}

// Record writes f under dir at RecordPath, creating the machine directory,
// and never replaces an existing file: the temporary file is linked into
// place, which fails if the name was taken meanwhile. Names have a
// one-second resolution, so two runs that start in the same second (two
// `run --record` side by side) would collide: the later one takes the first
// free name of <name>-<time>-2.json, -3, ... instead of failing after its
// whole run.
func Record(dir string, f *File, name string) (string, error) {
	p, err := RecordPath(dir, f, name)
	if err != nil && !errors.Is(err, errRecorded) {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return "", err
	}
	data, err := Encode(f)
	if err != nil {
		return "", err
	}
	base := strings.TrimSuffix(p, ".json")
	for n := 1; n <= maxRecordTries; n++ {
		try := p
		if n > 1 {
			try = fmt.Sprintf("%s-%d.json", base, n)
		}
		err := atomicfile.WriteNew(try, data)
		if err == nil {
			return try, nil
		}
		if !atomicfile.IsExist(err) {
			return "", err
		}
	}
	return "", fmt.Errorf("%s and %d more names like it already exist: recorded results are never rewritten", p, maxRecordTries-1)
}

// maxRecordTries bounds the -N suffixes Record tries for one start second.
const maxRecordTries = 100

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
