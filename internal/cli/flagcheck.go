package cli

import (
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// checkFlags runs before every command, on the flags the user gave:
//   - a comma list may not name one value twice (--waiters=1,1,
//     --gap=0,0, --deadlines=1ms,1000us, --impl=futex,futex): each value is
//     one configuration, two equal ones would share a key, and compare
//     would silently collapse them;
//   - --out and --record, when given, may not be empty.
func checkFlags(cmd *cobra.Command, _ []string) error {
	var err error
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if err != nil {
			return
		}
		switch f.Value.Type() {
		case "string":
		default:
			return
		}
		v := f.Value.String()
		if (f.Name == "out" || f.Name == "record") && strings.TrimSpace(v) == "" {
			err = usagef("--%s is empty; give a file or directory name (--out - writes the result file to stdout)", f.Name)
			return
		}
		if !strings.Contains(v, ",") {
			return
		}
		seen := map[string]string{}
		for _, item := range strings.Split(v, ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				continue
			}
			k := listKey(item)
			if first, dup := seen[k]; dup {
				if first == item {
					err = usagef("--%s names %s twice; each value is one configuration, give it once", f.Name, item)
				} else {
					err = usagef("--%s names one value twice (%s and %s); each value is one configuration, give it once", f.Name, first, item)
				}
				return
			}
			seen[k] = item
		}
	})
	return err
}

// listKey is the value a list item stands for, so that 1ms and 1000us, or
// 01 and 1, count as the same.
func listKey(item string) string {
	if n, err := strconv.Atoi(item); err == nil {
		return "int:" + strconv.Itoa(n)
	}
	if d, err := time.ParseDuration(item); err == nil {
		return "dur:" + strconv.FormatInt(int64(d), 10)
	}
	if b, err := strconv.ParseBool(item); err == nil {
		return "bool:" + strconv.FormatBool(b)
	}
	return "str:" + strings.ToLower(item)
}
