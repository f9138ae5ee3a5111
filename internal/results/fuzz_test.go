package results

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzDecode feeds arbitrary bytes to the result-file decoder: it must
// never panic, and whatever it accepts must round-trip (encode, decode,
// encode again gives the same bytes) and pass the schema validator.
// Seeds: every fixture under testdata, good and bad.
//
//	go test ./internal/results -run '^$' -fuzz FuzzDecode -fuzztime 60s
func FuzzDecode(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"format":"parkbench-result","version":1}`))
	f.Add([]byte(`{"format":"parkbench-result","version":99}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Decode(data)
		if err != nil {
			return
		}
		enc, err := Encode(file)
		if err != nil {
			t.Fatalf("accepted file does not encode: %v", err)
		}
		again, err := Decode(enc)
		if err != nil {
			t.Fatalf("accepted file does not decode after encoding: %v\n%s", err, enc)
		}
		enc2, err := Encode(again)
		if err != nil {
			t.Fatal(err)
		}
		if string(enc) != string(enc2) {
			t.Fatalf("round trip changed the file:\n%s\n---\n%s", enc, enc2)
		}
		if !reflect.DeepEqual(file, again) {
			t.Fatalf("round trip changed the decoded value")
		}
		// Histograms an accepted file carries must decode or fail cleanly.
		for _, e := range again.Experiments {
			if e == nil {
				continue
			}
			for _, c := range e.Configs {
				if c == nil {
					continue
				}
				for i := range c.Rounds {
					c.Rounds[i].Hist()
				}
			}
		}
	})
}
