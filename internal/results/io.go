package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/parkbench/parkbench/internal/atomicfile"
)

// CurrentTool describes the running parkbench build from its build info.
func CurrentTool() Tool {
	t := Tool{Version: "devel", GoVersion: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return t
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		t.Version = v
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			t.Commit = s.Value
		case "vcs.modified":
			t.Modified = s.Value == "true"
		}
	}
	return t
}

// Encode writes f as indented JSON.
func Encode(f *File) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(f); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteFile writes f to path atomically (atomicfile.Write: a temporary file
// in the same directory, synced, then renamed), so a reader never sees half
// a file and an interrupted run leaves nothing behind.
func WriteFile(path string, f *File) error {
	data, err := Encode(f)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, data)
}

// Decode parses a result file, refusing anything that is not a parkbench
// result of a version this build can read: invalid or truncated JSON, no
// "format": "parkbench-result", a version newer than Version, or a document
// that does not match that version's JSON Schema (schema/v<N>.json), or
// figures no measurement can produce (a negative latency or count, a
// histogram that does not decode: see checkFigures). Errors
// say what is wrong and where (a JSON pointer or line:column). Parameter
// values renamed since the file was written are upgraded (renamed.go).
func Decode(data []byte) (*File, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("not a parkbench result: the file is empty")
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, jsonError(data, err)
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, errors.New("not a parkbench result: the JSON is not an object")
	}
	if obj["format"] != Format {
		if f, ok := obj["format"].(string); ok {
			return nil, fmt.Errorf("not a parkbench result: \"format\" is %q, want %q", f, Format)
		}
		return nil, errors.New("not a parkbench result: no \"format\": \"" + Format + "\"")
	}
	var version int
	switch v := obj["version"].(type) {
	case json.Number:
		n, err := v.Int64()
		if err != nil || n < 1 {
			return nil, fmt.Errorf("malformed parkbench result: \"version\" is %s, want a positive integer", v)
		}
		if n > Version {
			return nil, fmt.Errorf("result format version %d is newer than this parkbench reads (1..%d); use a newer parkbench", n, Version)
		}
		version = int(n)
	default:
		return nil, errors.New("malformed parkbench result: \"version\" is missing or not a number")
	}
	if err := validateSchema(doc, version); err != nil {
		return nil, fmt.Errorf("malformed parkbench result: %w", err)
	}
	var f File
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("malformed parkbench result: %v", err)
	}
	if err := checkFigures(&f); err != nil {
		return nil, fmt.Errorf("malformed parkbench result: %w", err)
	}
	upgradeRenamed(&f)
	codeProse(&f)
	return &f, nil
}

// Validate checks f against the JSON Schema of its format version, as a
// reader would: encode, then decode.
func Validate(f *File) error {
	data, err := Encode(f)
	if err != nil {
		return err
	}
	_, err = Decode(data)
	return err
}

// jsonError describes a JSON parse error with its line and column, and calls
// an unexpected end what it almost always is: a truncated file.
func jsonError(data []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := lineCol(data, se.Offset)
		return fmt.Errorf("not a parkbench result: invalid JSON at line %d, column %d: %v", line, col, se)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(err.Error(), "unexpected EOF") {
		return fmt.Errorf("truncated parkbench result: the JSON ends after %d bytes, before the document is complete", len(data))
	}
	return fmt.Errorf("not a parkbench result: invalid JSON: %v", err)
}

// lineCol returns the 1-based position of the byte before off: a
// SyntaxError's Offset is just past the offending character.
func lineCol(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off > 0 {
		off--
	}
	line = 1 + bytes.Count(data[:off], []byte{'\n'})
	col = int(off) - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}

// ReadFile reads and decodes a result file; errors name the file.
func ReadFile(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}
