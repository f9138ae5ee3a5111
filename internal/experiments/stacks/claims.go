package stacks

import (
	"fmt"
	"strings"

	"github.com/parkbench/parkbench/internal/claim"
	"github.com/parkbench/parkbench/internal/results"
)

// Claims evaluates the experiment's claims from its configurations
// (pure: it reads Kind and Detail only). Their figures are counts, each
// over the whole run.
func Claims(cfgs []*results.Config) []results.Claim {
	return claim.EvaluateAll(cfgs,
		claim.Rule{ID: "stacks-same-top-several-meanings", Statement: "the same stack top can mean several things: several mechanisms sleep with the same wait channel in the same system call, " +
			"and the futex address, the futex op or the Go stack tells each apart",
			Needs: "needs two sleeping thread-level mechanisms that share a wait channel and system call",
			Select: func(c *results.Config) bool {
				return c.Detail != nil && c.Kind != "goroutine" && c.Impl != StackGoRuntime
			},
			Figures: sameTop},
		claim.Rule{ID: "stacks-goroutine-level-blocks-no-thread", Statement: "a goroutine blocked on sync.Mutex or a channel blocks no OS thread: it is parked by the Go scheduler with a wait reason, and the runtime's threads sleep on their own notes",
			Needs:  "needs a goroutine-level mechanism (sync-mutex, chan)",
			Select: func(c *results.Config) bool { return c.Kind == "goroutine" },
			Figures: func(cs []*results.Config) []claim.Figure {
				var ok, bad []string
				for _, c := range cs {
					w := c.Detail["goroutine_wait"]
					if w != "" && !strings.HasPrefix(w, "syscall") && !strings.HasPrefix(w, "running") && !strings.HasPrefix(w, "runnable") && strings.HasPrefix(c.Detail["tid"], "none") {
						ok = append(ok, fmt.Sprintf("%s [%s]", c.Impl, w))
					} else {
						bad = append(bad, fmt.Sprintf("%s [%s] tid %s", c.Impl, w, c.Detail["tid"]))
					}
				}
				note := "parked goroutines: " + strings.Join(ok, ", ")
				if len(bad) > 0 {
					note = "not parked by the scheduler: " + strings.Join(bad, ", ")
				}
				return []claim.Figure{claim.Fig("goroutine mechanisms not parked by the scheduler", []float64{float64(len(bad))}, cs...).AtMost(0).Exact().With(note)}
			}},
	)
}

// unreadable says whether a Detail figure could not be read (for example
// /proc/TID/stack without root, /proc/TID/syscall under a ptrace policy).
func unreadable(v string) bool {
	return strings.HasPrefix(v, "not readable") || strings.HasPrefix(v, "unreadable")
}

// sameTop groups the sleeping threads by (wait channel, system call) and
// counts the pairs in a shared group that nothing tells apart (futex
// address, op, matched object and Go stack all equal). A thread whose
// figures could not be read joins no group (all "not readable" threads
// would otherwise look like one shared top).
func sameTop(cs []*results.Config) []claim.Figure {
	groups := map[string][]*results.Config{} // by "wchan in syscall"
	var order, notRead []string
	for _, c := range cs {
		d := c.Detail
		if unreadable(d["state"]) || unreadable(d["wchan"]) || unreadable(d["syscall"]) {
			notRead = append(notRead, c.Impl)
			continue
		}
		if d["wchan"] == "" || !strings.HasPrefix(d["state"], "S") {
			continue
		}
		sys, _, _ := strings.Cut(d["syscall"], "(")
		k := d["wchan"] + " in " + sys
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], c)
	}
	var shared, clash []string
	var of []*results.Config
	for _, k := range order {
		g := groups[k]
		if len(g) < 2 {
			continue
		}
		var names []string
		for i, a := range g {
			names = append(names, a.Impl)
			for _, b := range g[i+1:] {
				x, y := a.Detail, b.Detail
				if x["futex_addr"] == y["futex_addr"] && x["futex_op"] == y["futex_op"] && firstLine(x["go_stack"]) == firstLine(y["go_stack"]) && x["matches"] == y["matches"] {
					clash = append(clash, a.Impl+" = "+b.Impl)
				}
			}
		}
		of = append(of, g...)
		shared = append(shared, k+": "+strings.Join(names, ", "))
	}
	unread := fmt.Sprintf("the wait channel or system call of %d threads (%s) could not be read (run as root, or allow ptrace)", len(notRead), strings.Join(notRead, ", "))
	switch {
	case len(shared) == 0 && len(notRead) > 0:
		return []claim.Figure{claim.Fig("shared stack tops", nil).Skip(unread)}
	case len(shared) == 0:
		return nil
	}
	note := strings.Join(claim.Notes("shared tops: "+strings.Join(shared, "; "),
		claim.Listed("indistinguishable by address, op and Go stack", clash), claim.Listed("not measured (unreadable)", notRead)), "; ")
	return []claim.Figure{claim.Fig("pairs sharing a stack top that nothing tells apart", []float64{float64(len(clash))}, of...).AtMost(0).Exact().With(note)}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
