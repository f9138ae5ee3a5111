package cli

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// checkFlags runs before every command, on the flags the user gave:
// --out and --record, when given, may not be empty. (A list that names one
// value twice is refused where it is parsed: onceEach.)
func checkFlags(cmd *cobra.Command, _ []string) error {
	var err error
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if err == nil && (f.Name == "out" || f.Name == "record") && strings.TrimSpace(f.Value.String()) == "" {
			err = usagef("--%s is empty; give a file or directory name (--out - writes the result file to stdout)", f.Name)
		}
	})
	return err
}
