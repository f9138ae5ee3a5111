package experiments

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// part is one part of the template every experiment package follows
// (docs/layout.md): a file and what it declares.
type part struct {
	file string
	// decl matches a name the file declares at package level ("" for
	// doc.go, which holds the package comment).
	decl *regexp.Regexp
}

var template = []part{
	{"doc.go", nil},
	{"options.go", regexp.MustCompile(`Options$`)},
	{"impls.go", regexp.MustCompile(`Impls$`)},
	{"run.go", regexp.MustCompile(`^(Run|Plan)`)},
	{"claims.go", regexp.MustCompile(`.`)},
	{"metricspec.go", regexp.MustCompile(`Metrics$`)},
}

// templateExempt: the parts a package has not, and why.
var templateExempt = map[string]string{
	"stacks/metricspec.go": "stacks has no figures (its registry entry has no Metrics): each configuration is a block of text",
}

// TestTemplate: every experiment package (a directory of
// internal/experiments but driver) has the template's parts.
func TestTemplate(t *testing.T) {
	dirs, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range dirs {
		if !d.IsDir() || d.Name() == "driver" {
			continue
		}
		n++
		for _, p := range template {
			key := d.Name() + "/" + p.file
			if _, ok := templateExempt[key]; ok {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(d.Name(), p.file), nil, parser.ParseComments)
			if err != nil {
				t.Errorf("%s: the template's %s: %v", d.Name(), p.file, err)
				continue
			}
			if p.decl == nil {
				if f.Doc == nil || !strings.HasPrefix(f.Doc.Text(), "Package "+f.Name.Name+" ") {
					t.Errorf("%s: doc.go has no package comment (\"Package %s ...\")", key, f.Name.Name)
				}
				continue
			}
			if !declares(f, p.decl) {
				t.Errorf("%s declares nothing matching %s", key, p.decl)
			}
		}
	}
	if n < 10 {
		t.Fatalf("%d experiment packages found: run from internal/experiments", n)
	}
}

func declares(f *ast.File, re *regexp.Regexp) bool {
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && re.MatchString(d.Name.Name) {
				return true
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if re.MatchString(s.Name.Name) {
						return true
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if re.MatchString(n.Name) {
							return true
						}
					}
				}
			}
		}
	}
	return false
}

// TestLayoutNamesEveryPackage: docs/layout.md names every package of the
// module (every directory with a non-test Go file, as `go list ./...`
// lists them): by its path ("internal/ktrace/"), or by its last element
// ("selfwake/") after its parent's path in one block (an unindented line
// and the indented ones after it).
func TestLayoutNamesEveryPackage(t *testing.T) {
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "layout.md"))
	if err != nil {
		t.Fatal(err)
	}
	var pkgs []string
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (n == "testdata" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			rel, _ := filepath.Rel(root, filepath.Dir(path))
			pkgs = append(pkgs, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(pkgs)
	pkgs = slicesCompact(pkgs)
	lines := strings.Split(string(doc), "\n")
	for _, p := range pkgs {
		if !named(lines, p) {
			t.Errorf("docs/layout.md does not name package %s/", p)
		}
	}
	if len(pkgs) < 40 {
		t.Fatalf("%d packages found under the module root", len(pkgs))
	}
}

// named reports whether lines name package p (see TestLayoutNamesEveryPackage).
func named(lines []string, p string) bool {
	if p == "." {
		return true
	}
	// A one-element path only at a line's start ("bench/" is also
	// rust/bench/, named after a space).
	at := `^\s*`
	if strings.Contains(p, "/") {
		at = `(^|\s)`
	}
	full := regexp.MustCompile(at + regexp.QuoteMeta(p) + `/`)
	for _, l := range lines {
		if full.MatchString(l) {
			return true
		}
	}
	parent, base := filepath.ToSlash(filepath.Dir(p)), filepath.Base(p)
	if parent == "." {
		return false
	}
	short := regexp.MustCompile(`(^|[\s,(])` + regexp.QuoteMeta(base) + `/`)
	head := regexp.MustCompile(`(^|\s)` + regexp.QuoteMeta(parent) + `/`)
	// A block: an unindented line and the indented ones after it.
	var blocks []string
	for _, l := range lines {
		if strings.HasPrefix(l, " ") && len(blocks) > 0 {
			blocks[len(blocks)-1] += "\n" + l
			continue
		}
		blocks = append(blocks, l)
	}
	for _, b := range blocks {
		if loc := head.FindStringIndex(b); loc != nil && short.MatchString(b[loc[1]:]) {
			return true
		}
	}
	return false
}

func slicesCompact(s []string) []string {
	var out []string
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}
