package results

import (
	"slices"
	"strings"
)

// renamedValues are parameter values renamed after files were written with
// the old name. Decode upgrades them, so that a file from before the rename
// matches a new one key for key (compare, the gate, trend). Each entry is
// kept for one release after its rename.
var renamedValues = []struct {
	experiment, param, old, new string
}{
	// herd's notify mode "all" read as "every mode" beside every other
	// list's "all"; renamed notify-all (internal/experiments/herd).
	{"herd", "notify", "all", "notify-all"},
}

// upgradeRenamed rewrites f's renamed parameter values in place: the
// configurations' params and keys ("param=old" segments) and the options
// echo (comma lists).
func upgradeRenamed(f *File) {
	for _, r := range renamedValues {
		for _, e := range f.Experiments {
			if e == nil || e.Name != r.experiment {
				continue
			}
			for _, c := range e.Configs {
				if c == nil || c.Params[r.param] != r.old {
					continue
				}
				c.Params[r.param] = r.new
				seg := strings.Split(c.Key, "/")
				if i := slices.Index(seg, r.param+"="+r.old); i >= 0 {
					seg[i] = r.param + "=" + r.new
					c.Key = strings.Join(seg, "/")
				}
			}
			if v, ok := e.Options[r.param]; ok {
				items := strings.Split(v, ",")
				for i, it := range items {
					if it == r.old {
						items[i] = r.new
					}
				}
				e.Options[r.param] = strings.Join(items, ",")
			}
		}
	}
}
