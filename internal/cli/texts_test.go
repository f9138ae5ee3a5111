package cli

import (
	"io/fs"
	"strings"
	"testing"
)

// TestCommandTexts: every help/<name>.txt is a command's and reads (a
// summary line, the long help, the examples), and no summary, long help or
// examples of an experiment's command are empty.
func TestCommandTexts(t *testing.T) {
	root := newRoot()
	files, err := fs.Glob(helpFiles, "help/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("help/*.txt: %v (%d files)", err, len(files))
	}
	for _, f := range files {
		name := strings.TrimSuffix(strings.TrimPrefix(f, "help/"), ".txt")
		c, _, err := root.Find([]string{name})
		if err != nil || c == root {
			t.Errorf("%s: no command %q", f, name)
			continue
		}
		tx := commandTexts(name)
		if tx.short == "" || tx.long == "" || tx.example == "" || tx.short != c.Short || tx.example != c.Example {
			t.Errorf("%s: texts %+v do not make the command's help", f, tx)
		}
		if strings.Contains(c.Long, "{implementations}") {
			t.Errorf("%s: a placeholder is left in the long help: %q", f, c.Long)
		}
	}
}
