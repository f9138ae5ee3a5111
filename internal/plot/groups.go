package plot

import (
	"strconv"
	"strings"

	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/textfmt"
)

// ParamGroup is one configuration across the values of a parameter.
type ParamGroup struct {
	// Key is the configurations' key without the parameter; Label the
	// same without the parts every group shares (the implementation when
	// that alone tells the groups apart).
	Key, Impl, Label string
	ByValue          map[int]*results.Config
}

// ParamGroups splits an experiment's configurations by everything but the
// integer parameter param (herd's waiter count "n"): the key without its
// "/<param>=<value>" part, in order of first appearance. report's pivot
// tables and the param plots draw one group per column or line.
func ParamGroups(e *results.Experiment, param string) (groups []ParamGroup) {
	index := map[string]int{}
	for _, c := range e.Configs {
		n, err := strconv.Atoi(c.Params[param])
		if err != nil {
			continue
		}
		k := strings.Replace(c.Key, "/"+param+"="+c.Params[param], "", 1)
		i, ok := index[k]
		if !ok {
			i = len(groups)
			index[k] = i
			groups = append(groups, ParamGroup{Key: k, Impl: c.Impl, ByValue: map[int]*results.Config{}})
		}
		groups[i].ByValue[n] = c
	}
	keys := make([]string, len(groups))
	for i, g := range groups {
		keys[i] = g.Key
	}
	short, _ := textfmt.ShortKeys(keys)
	for i := range groups {
		groups[i].Label = short[i]
	}
	return groups
}
