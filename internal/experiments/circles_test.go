package experiments

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/experiments/driver/drivertest"
)

// circled are the experiment packages whose files still import in a circle
// (file A uses what file B declares and B, through any files, uses A's),
// each with its circles' size when this test came; no other may have one,
// and these may not grow. latency's was cut along its seams (selfwake,
// stats.Modes, the anatomy's tracing and claims, schedacct's figures).
var circled = map[string]int{
	"driver": 2, "herd": 10, "inversion": 7, "loaded": 2, "lock": 12, "stacks": 5, "timeout": 3, "wake": 11,
}

// TestNoFileCircles: the files of every experiment package (GOOS=linux,
// cgo), resolved by go/types, import in no circle but the ones above.
func TestNoFileCircles(t *testing.T) {
	seen := 0
	for _, p := range loadTyped(t, "./...") {
		name := strings.TrimPrefix(p.path, "github.com/parkbench/parkbench/internal/experiments/")
		if name == p.path || strings.Contains(name, "/") {
			continue
		}
		seen++
		n := 0
		for _, c := range FileCircles(p) {
			n += len(c)
			if _, ok := circled[name]; !ok {
				t.Errorf("%s: files in a circle: %s", name, strings.Join(c, " <-> "))
			}
		}
		if max, ok := circled[name]; ok && n > max {
			t.Errorf("%s: %d files in circles, were %d", name, n, max)
		}
	}
	if seen < 10 {
		t.Fatalf("%d experiment packages loaded", seen)
	}
}

// typed is a package of this module parsed and type-checked.
type typed struct {
	path  string
	fset  *token.FileSet
	files []*ast.File
	types *types.Package
	info  *types.Info
}

// loadTyped parses and type-checks the module's packages that pattern
// names, as go/packages would (their CompiledGoFiles: cgo's output, its
// positions mapped back to the .go files by //line), importing every
// dependency from the export data `go list -export` leaves: the packages
// `go test` compiled already, built as this test binary was
// (drivertest.GoCommand: with -race when it has it; no non-test file has a
// race build constraint, so the types and the circles are the same).
func loadTyped(t *testing.T, pattern string) []typed {
	t.Helper()
	gobin, flags := drivertest.GoCommand(t)
	args := append([]string{"list", "-deps", "-export", "-compiled", "-json=ImportPath,Dir,CompiledGoFiles,Export,DepOnly,Error"}, flags...)
	cmd := exec.Command(gobin, append(args, pattern)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	type listed struct {
		ImportPath, Dir, Export string
		CompiledGoFiles         []string
		DepOnly                 bool
		Error                   *struct{ Err string }
	}
	export := map[string]string{}
	var mine []listed
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var l listed
		if err := dec.Decode(&l); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if l.Error != nil {
			t.Fatalf("%s: %s", l.ImportPath, l.Error.Err)
		}
		export[l.ImportPath] = l.Export
		if !l.DepOnly {
			mine = append(mine, l)
		}
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		if export[path] == "" {
			return nil, errors.New("no export data for " + path)
		}
		return os.Open(export[path])
	})
	var pkgs []typed
	for _, l := range mine {
		p := typed{path: l.ImportPath, fset: fset, info: &types.Info{Uses: map[*ast.Ident]types.Object{}}}
		for _, f := range l.CompiledGoFiles {
			if !filepath.IsAbs(f) {
				f = filepath.Join(l.Dir, f)
			}
			af, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			p.files = append(p.files, af)
		}
		var err error
		if p.types, err = (&types.Config{Importer: imp}).Check(l.ImportPath, fset, p.files, p.info); err != nil {
			t.Fatalf("%s: %v", l.ImportPath, err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// FileCircles are p's circles of files (strongly connected components of
// more than one file of the graph "A uses an object B declares").
func FileCircles(p typed) [][]string {
	edges := map[string]map[string]bool{}
	for _, f := range p.files {
		from := filepath.Base(p.fset.Position(f.Pos()).Filename)
		edges[from] = map[string]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			obj := p.info.Uses[id]
			if obj == nil || obj.Pkg() != p.types {
				return true
			}
			if _, v := obj.(*types.Var); v && obj.Parent() != nil && obj.Parent() != p.types.Scope() {
				return true // a local variable or parameter
			}
			pos := p.fset.Position(obj.Pos())
			if to := filepath.Base(pos.Filename); strings.HasSuffix(pos.Filename, ".go") && to != from {
				edges[from][to] = true
			}
			return true
		})
	}
	// Tarjan's strongly connected components.
	index, low, on := map[string]int{}, map[string]int{}, map[string]bool{}
	var stack []string
	var out [][]string
	var strong func(v string)
	strong = func(v string) {
		index[v], low[v] = len(index), len(index)
		stack = append(stack, v)
		on[v] = true
		for w := range edges[v] {
			if _, ok := index[w]; !ok {
				strong(w)
				low[v] = min(low[v], low[w])
			} else if on[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] != index[v] {
			return
		}
		var c []string
		for {
			w := stack[len(stack)-1]
			stack, on[w] = stack[:len(stack)-1], false
			c = append(c, w)
			if w == v {
				break
			}
		}
		if len(c) > 1 {
			sort.Strings(c)
			out = append(out, c)
		}
	}
	var files []string
	for v := range edges {
		files = append(files, v)
	}
	sort.Strings(files)
	for _, v := range files {
		if _, ok := index[v]; !ok {
			strong(v)
		}
	}
	return out
}
