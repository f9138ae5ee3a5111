package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/parkbench/parkbench/internal/ext"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/textfmt"
)

// Exit statuses.
const (
	exitOK          = 0
	exitFailed      = 1 // a run failed, or compare found a regression
	exitUsage       = 2 // bad input
	exitInterrupted = 130
)

// commandMakers are the subcommands; each command file registers its
// constructor from init, so commands stay independent of one another.
var commandMakers []func() *cobra.Command

func register(mk func() *cobra.Command) { commandMakers = append(commandMakers, mk) }

// usageError marks bad input (exit status 2).
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

// usagef returns a bad-input error.
func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// exitError carries a specific exit status (1: regression or failed run,
// 130: interrupted) with an optional message.
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "parkbench",
		Short: "Measure thread park/wake latency across parker implementations",
		Long: `parkbench measures how long it takes to put a thread to sleep and wake it
up, by every mechanism real synchronisation libraries use (futex, pthread
condvars, Windows WaitOnAddress and keyed events, crossbeam and std token
parkers, a Go port of Rust's parking_lot), and reproduces the study's
experiments: E12 wake latency (latency, selfwake) and E6 notify_all with N
waiters (herd).`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFlags(cmd, args); err != nil {
				return err
			}
			return loadPlugins(cmd)
		},
		Version: versionString(),
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError{fmt.Errorf("%w (see '%s --help')", err, c.CommandPath())}
	})
	addPluginFlag(root)
	for _, mk := range commandMakers {
		root.AddCommand(mk())
	}
	setHelp(root)
	return root
}

// versionString is the build's version, commit and Go version, for
// --version (the same facts a result file's "tool" records).
func versionString() string {
	t := results.CurrentTool()
	v := t.Version
	if t.Commit != "" {
		c := t.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		v += " (" + c
		if t.Modified {
			v += ", modified"
		}
		v += ")"
	}
	return v + " " + t.GoVersion
}

// execute is Main: the process's signal handler, then executeTo.
func execute(args []string) int {
	defer installInterrupts()()
	return executeTo(args, os.Stdout, os.Stderr)
}

// executeTo runs parkbench with args, writing to stdout and stderr, and
// returns the exit status.
func executeTo(args []string, stdout, stderr io.Writer) int {
	// Implementations registered by this execution (its --plugin) are
	// forgotten after it, so that each execution sees its own.
	defer ext.Restore(ext.Saved())
	root := newRoot()
	root.SetArgs(rwlockAlias(args))
	out := &stickyWriter{w: stdout}
	root.SetOut(out)
	root.SetErr(stderr)
	strictCompletion(root, args)
	err := root.Execute()
	if err == nil {
		err = out.writeFailed()
	}
	if err == nil {
		return exitOK
	}
	var ee exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			printError(stderr, ee.err)
		}
		return ee.code
	}
	printError(stderr, err)
	var ue usageError
	if errors.As(err, &ue) || isCobraUsage(err) {
		return exitUsage
	}
	return exitFailed
}

// strictCompletion makes cobra's 'completion' command refuse a shell it has
// no script for: as cobra makes it, 'parkbench completion tcsh' prints the
// command's help and exits 0. The command is made here, once the root's
// output is set (each script writes to the stdout the root had when the
// command was made); Execute then keeps it.
func strictCompletion(root *cobra.Command, args []string) {
	root.InitDefaultCompletionCmd(args...)
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		var shells []string
		for _, sh := range c.Commands() {
			shells = append(shells, sh.Name())
		}
		c.Args = func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("completion: no script for shell %q; valid shells: %s", args[0], strings.Join(shells, ", "))
			}
			return nil
		}
		// Without a shell: the command's help, as before (exit 0).
		c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
	}
}

// printError writes "parkbench: " and err, wrapped at textfmt.Columns.
func printError(w io.Writer, err error) {
	fmt.Fprintln(w, textfmt.Wrap("parkbench: "+err.Error(), textfmt.Columns, "", "    "))
}

// isCobraUsage recognises cobra's own argument errors (unknown command,
// wrong number of arguments), which it returns as plain errors.
func isCobraUsage(err error) bool {
	for _, p := range []string{"unknown command", "accepts ", "requires at least", "unknown flag", "unknown shorthand", "invalid argument"} {
		if strings.Contains(err.Error(), p) {
			return true
		}
	}
	return false
}
