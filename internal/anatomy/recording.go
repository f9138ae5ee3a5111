package anatomy

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/parkbench/parkbench/internal/ktrace"
)

// Recording is a traced round as recorded: the participants, the decoded
// records and parkbench's wakes. Tests replay committed recordings
// (testdata/) through Index and Join.
type Recording struct {
	TIDs   []int32        `json:"tids"`
	Events []ktrace.Event `json:"events"`
	Wakes  []Wake         `json:"wakes"`
	Lost   uint64         `json:"lost"`
}

// WriteRecording writes r as JSON to path.
func WriteRecording(path string, r Recording) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// ReadRecording reads a recording written by WriteRecording (gzipped
// when path ends in .gz).
func ReadRecording(path string) (Recording, error) {
	var r Recording
	b, err := os.ReadFile(path)
	if err != nil {
		return r, err
	}
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return r, fmt.Errorf("%s: %w", path, err)
		}
		if b, err = io.ReadAll(zr); err != nil {
			return r, fmt.Errorf("%s: %w", path, err)
		}
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}
