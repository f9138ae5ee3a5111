package results

import (
	"bytes"
	"embed"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// The JSON Schemas, one per format version: schema/v<N>.json. They are the
// machine-readable form of the field list in the package documentation.
//
//go:embed schema/*.json
var schemaFS embed.FS

// SchemaJSON returns the JSON Schema of format version v.
func SchemaJSON(v int) ([]byte, error) {
	return schemaFS.ReadFile(fmt.Sprintf("schema/v%d.json", v))
}

var schemas = sync.OnceValues(func() (map[int]*jsonschema.Schema, error) {
	out := map[int]*jsonschema.Schema{}
	for v := 1; v <= Version; v++ {
		data, err := SchemaJSON(v)
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("schema v%d: %w", v, err)
		}
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		url := fmt.Sprintf("mem://parkbench/schema/v%d.json", v)
		if err := c.AddResource(url, doc); err != nil {
			return nil, fmt.Errorf("schema v%d: %w", v, err)
		}
		s, err := c.Compile(url)
		if err != nil {
			return nil, fmt.Errorf("schema v%d: %w", v, err)
		}
		out[v] = s
	}
	return out, nil
})

var printer = message.NewPrinter(language.English)

// validateSchema checks a parsed JSON document (from jsonschema.UnmarshalJSON)
// against the schema of format version v. The error lists each violation as
// "at /json/pointer: what is wrong", at most five of them.
func validateSchema(doc any, v int) error {
	all, err := schemas()
	if err != nil {
		return err
	}
	s, ok := all[v]
	if !ok {
		return fmt.Errorf("no schema for format version %d", v)
	}
	err = s.Validate(doc)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return err
	}
	var msgs []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			loc := "/" + strings.Join(e.InstanceLocation, "/")
			msgs = append(msgs, "at "+loc+": "+e.ErrorKind.LocalizedString(printer))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.Strings(msgs)
	msgs = dedup(msgs)
	const max = 5
	if len(msgs) > max {
		msgs = append(msgs[:max], fmt.Sprintf("and %d more", len(msgs)-max))
	}
	return fmt.Errorf("does not match the version %d schema: %s", v, strings.Join(msgs, "; "))
}

func dedup(s []string) []string {
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}
