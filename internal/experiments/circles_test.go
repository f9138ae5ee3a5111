package experiments

import (
	"go/ast"
	"go/types"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"

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
	// go/packages runs the go command, built as this test binary was
	// (drivertest.GoCommand: the export data of the packages `go test
	// -race` compiled already; no non-test file has a race build constraint,
	// so the types and the circles are the same).
	_, flags := drivertest.GoCommand(t)
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo, Tests: false, BuildFlags: flags}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, p := range pkgs {
		if len(p.Errors) > 0 {
			t.Fatalf("%s: %v", p.PkgPath, p.Errors)
		}
		name := strings.TrimPrefix(p.PkgPath, "github.com/parkbench/parkbench/internal/experiments/")
		if name == p.PkgPath || strings.Contains(name, "/") {
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

// FileCircles are p's circles of files (strongly connected components of
// more than one file of the graph "A uses an object B declares").
func FileCircles(p *packages.Package) [][]string {
	edges := map[string]map[string]bool{}
	for _, f := range p.Syntax {
		from := filepath.Base(p.Fset.Position(f.Pos()).Filename)
		edges[from] = map[string]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			obj := p.TypesInfo.Uses[id]
			if obj == nil || obj.Pkg() != p.Types {
				return true
			}
			if _, v := obj.(*types.Var); v && obj.Parent() != nil && obj.Parent() != p.Types.Scope() {
				return true // a local variable or parameter
			}
			pos := p.Fset.Position(obj.Pos())
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
