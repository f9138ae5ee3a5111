package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/parkbench/parkbench/internal/atomicfile"
	"github.com/parkbench/parkbench/internal/experiments"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/inject"
	"github.com/parkbench/parkbench/internal/machine"
	"github.com/parkbench/parkbench/internal/report"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/textfmt"
	"github.com/parkbench/parkbench/internal/undo"
)

// outputFlags are the flags every measuring command shares.
type outputFlags struct {
	format string
	out    string
	quiet  bool
	view   report.Options
	// record is run's --record: the result is filed there, so the end of
	// the run does not say that nothing was saved.
	record string
	// renderers are the formats beyond report.Formats that this command
	// renders itself (wake's perf: perf bench futex's own lines).
	renderers map[string]func(io.Writer, *results.File) error
}

// formats lists every --format this command takes.
func (of *outputFlags) formats() []string {
	return append(slices.Clone(report.Formats), slices.Sorted(maps.Keys(of.renderers))...)
}

// render writes f in the chosen format.
func (of *outputFlags) render(w io.Writer, f *results.File, view report.Options) error {
	if r, ok := of.renderers[of.format]; ok {
		return r(w, f)
	}
	return report.Render(w, f, of.format, view)
}

// addViewFlags adds --wide and -v/--verbose (what the table and markdown
// formats show; the JSON always has everything).
func addViewFlags(cmd *cobra.Command, o *report.Options) {
	o.Preferred = plotLines()
	cmd.Flags().BoolVar(&o.Wide, "wide", false, "tables: every column (the probe and diagnostic ones too), however wide; the JSON has them all")
	cmd.Flags().BoolVarP(&o.Verbose, "verbose", "v", false, "claims: add the evidence and the options (always in the JSON)")
}

func addOutputFlags(cmd *cobra.Command, of *outputFlags) {
	cmd.Flags().StringVar(&of.format, "format", "table", "output on stdout: "+strings.Join(of.formats(), "|"))
	_ = cmd.RegisterFlagCompletionFunc("format", completeFrom(of.formats, false))
	cmd.Flags().StringVarP(&of.out, "out", "o", "", "write the result file (versioned JSON) to `FILE` (- for stdout); written only when the run completes")
	cmd.Flags().BoolVarP(&of.quiet, "quiet", "q", false, quietUsage)
	addViewFlags(cmd, &of.view)
}

// quietUsage is what --quiet does (the table and markdown formats; the
// others are data and stay whole).
const quietUsage = "print little: no progress, and with --format table or markdown only the summary (each experiment's claims and " +
	"main figure, every claim that does not hold with its reason); json, csv and benchstat are unchanged; the last line still " +
	"says where the result went"

// wantArgs accepts min to max arguments (max < 0: any number from min) and
// refuses others (exit 2): "CMD needs NEED (see 'parkbench CMD --help')".
func wantArgs(min, max int, need string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < min || max >= 0 && len(args) > max {
			return usagef("%s needs %s (see '%s --help')", cmd.Name(), need, cmd.CommandPath())
		}
		return nil
	}
}

// flagsOnly refuses the arguments of a measuring command, which takes
// flags only. The likeliest is a list written with spaces (--waiters 4 8,
// which reads as --waiters=4 and an argument 8), so the message says how a
// list is written, where cobra's says "unknown command "8"".
func flagsOnly(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("%s takes flags only, not the argument %q; a list is one word with commas (--impl=futex,lot)", cmd.Name(), args[0])
	}
	return nil
}

// checkFormat refuses a --format that is not one of valid (exit 2).
func checkFormat(format string, valid []string) error {
	if !slices.Contains(valid, format) {
		return usagef("invalid --format %q: valid formats are %s", format, strings.Join(valid, ", "))
	}
	return nil
}

// check validates the output flags before anything is measured: a bad
// --out (a directory, a missing or read-only directory) fails now, in a
// second, not after the whole run.
func (of *outputFlags) check() error {
	if err := checkFormat(of.format, of.formats()); err != nil {
		return err
	}
	if of.out != "" && of.out != "-" {
		if err := atomicfile.Check(of.out); err != nil {
			return usagef("--out: %v", err)
		}
	}
	return nil
}

// newFile starts a result file for this run.
func newFile(cmd *cobra.Command) *results.File {
	return &results.File{
		Format:  results.Format,
		Version: results.Version,
		Tool:    results.CurrentTool(),
		Started: time.Now().UTC(),
		Command: append([]string{"parkbench"}, os.Args[1:]...),
		Machine: machine.Describe(),
		// A -tags parkinject build says what it slows (internal/inject).
		Warnings: slices.DeleteFunc([]string{inject.Describe()}, func(s string) bool { return s == "" }),
	}
}

// emit renders the finished file on stdout and writes --out atomically.
// With --out - the result file goes to stdout instead, and the rendered
// report to stderr (unless --quiet), so that stdout stays one JSON document.
//
// The end of the run says where the result went (stderr, after the
// report): "wrote FILE", or that nothing was saved and how to save it.
// --quiet prints the summary alone and, on stderr, that one line: quiet
// is no reason to lose track of a result (run --record says "recorded
// FILE" itself).
func emit(cmd *cobra.Command, of *outputFlags, f *results.File) error {
	f.Finished = time.Now().UTC()
	stampExternal(f)
	view := of.view
	view.Summary = of.quiet
	if of.out == "-" {
		data, err := results.Encode(f)
		if err != nil {
			return err
		}
		if !of.quiet {
			if err := of.render(cmd.ErrOrStderr(), f, view); err != nil {
				return err
			}
		}
		_, err = cmd.OutOrStdout().Write(data)
		return err
	}
	if err := of.render(cmd.OutOrStdout(), f, view); err != nil {
		return err
	}
	if of.out != "" {
		if err := results.WriteFile(of.out, f); err != nil {
			return exitError{exitFailed, err}
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s (parkbench report, compare and plot read it)\n", of.out)
	} else if of.record == "" {
		fmt.Fprintln(cmd.ErrOrStderr(), textfmt.Wrap(notSaved(cmd), textfmt.Columns, "", "    "))
	}
	return nil
}

// notSaved is the last line of a run whose result was not written: how to
// keep it.
func notSaved(cmd *cobra.Command) string {
	if cmd.Flags().Lookup("record") != nil {
		return "result not saved: --out FILE writes it, --record results files it under results/<machine>/"
	}
	return "result not saved: --out FILE writes it (versioned JSON: parkbench report, compare and plot read it)"
}

// Signals. SIGINT and SIGTERM always end the run, with status 130 and
// nothing written. The process's handler (installInterrupts: Main installs
// it for the life of the process) cancels every context signalContext made:
// experiments check it between configurations and rounds (and the C
// ping-pong within a round trip), restore what they changed (affinity is
// per retired thread; GOMAXPROCS and GC through runenv) and return
// context.Canceled, and the command exits 130. A run that cannot return,
// because a thread is blocked in a library's code (a hung foreign call, or
// a C-thread lock round that blocks in C until it ends), is ended by the
// handler itself: if the command has not returned interruptGrace after the
// signal, or at a second signal, it prints "interrupted; no result
// written", runs what the run registered to put back (internal/undo) and
// exits 130. A blocked C thread cannot be taken back; the process can still
// exit. The one thing it waits for is a result being written (emit): a file
// is written whole or not at all.

// interruptGrace is how long a run has, after SIGINT or SIGTERM, to return
// by itself.
const interruptGrace = 500 * time.Millisecond

var interrupts struct {
	mu       sync.Mutex
	cancels  map[*context.CancelFunc]bool
	signaled bool
	writing  int
}

// installInterrupts starts the process's SIGINT/SIGTERM handler; stop
// removes it.
func installInterrupts() (stop func()) {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		for n := 1; ; n++ {
			select {
			case <-ch:
			case <-done:
				return
			}
			interrupted()
			if n == 1 {
				time.AfterFunc(interruptGrace, forceInterrupt)
			} else {
				forceInterrupt()
			}
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}

// interrupted cancels every run's context, and those made from now on.
func interrupted() {
	interrupts.mu.Lock()
	defer interrupts.mu.Unlock()
	interrupts.signaled = true
	for c := range interrupts.cancels {
		(*c)()
	}
}

// forceInterrupt ends the process (130), unless a result is being
// written: that command ends as soon as it is.
func forceInterrupt() {
	interrupts.mu.Lock()
	writing := interrupts.writing > 0
	interrupts.mu.Unlock()
	if writing {
		return
	}
	fmt.Fprintln(os.Stderr, "parkbench: interrupted; no result written")
	undo.Exit(exitInterrupted)
}

// writingResult keeps forceInterrupt from ending the process until done is
// called.
func writingResult() (done func()) {
	interrupts.mu.Lock()
	interrupts.writing++
	interrupts.mu.Unlock()
	return func() {
		interrupts.mu.Lock()
		interrupts.writing--
		interrupts.mu.Unlock()
	}
}

// signalContext is cancelled on SIGINT or SIGTERM (see above).
func signalContext() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	key := &cancel
	interrupts.mu.Lock()
	defer interrupts.mu.Unlock()
	if interrupts.signaled {
		cancel()
	}
	if interrupts.cancels == nil {
		interrupts.cancels = map[*context.CancelFunc]bool{}
	}
	interrupts.cancels[key] = true
	return ctx, func() {
		interrupts.mu.Lock()
		delete(interrupts.cancels, key)
		interrupts.mu.Unlock()
		cancel()
	}
}

// runErr maps an experiment error to the exit status: interrupted (130),
// bad input that only the experiment could detect (2, naming the flag of
// the field at fault by fields), or failure (1).
func runErr(err error, fields map[string]string) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) {
		return exitError{exitInterrupted, errors.New("interrupted; no result written")}
	}
	var ue usageError
	if errors.As(err, &ue) {
		return err
	}
	var oe *driver.OptionError
	if errors.As(err, &oe) {
		return usageError{flagError(oe, fields)}
	}
	return exitError{exitFailed, err}
}

// progress returns a progress reporter on stderr: a one-line bar rewritten
// in place when stderr is a terminal; otherwise (a CI log) one line per
// finished configuration; nothing with --quiet.
func progress(cmd *cobra.Command, of *outputFlags) driver.Progress {
	if of.quiet {
		return nil
	}
	errw := cmd.ErrOrStderr()
	start := time.Now()
	if fd, ok := errw.(interface{ Fd() uintptr }); ok && term.IsTerminal(int(fd.Fd())) {
		return func(done, total int, label string) {
			drawBar(errw, done, total, label, time.Since(start))
		}
	}
	return progressLines(errw, start)
}

// progressLines reports each configuration when the next one starts (or
// the run ends): "[3/20 12s] latency futex/cross-core done".
func progressLines(w io.Writer, start time.Time) driver.Progress {
	last, lastDone := "", -1
	return func(done, total int, label string) {
		if done > lastDone && last != "" {
			fmt.Fprintf(w, "[%d/%d %s] %s done\n", done, total, time.Since(start).Truncate(time.Second), last)
		}
		last, lastDone = label, done
	}
}

func drawBar(w io.Writer, done, total int, label string, elapsed time.Duration) {
	const width = 24
	if total <= 0 {
		total = 1
	}
	// Clamp: a miscounting caller must not make strings.Repeat panic.
	done = min(max(done, 0), total)
	n := done * width / total
	// Cut the label at a rune boundary ("hold=20µs" must not lose half a µ).
	if r := []rune(label); len(r) > 40 {
		label = string(r[:40])
	}
	fmt.Fprintf(w, "\r\033[K[%s%s] %d/%d %s %s", strings.Repeat("=", n), strings.Repeat(" ", width-n), done, total, elapsed.Truncate(time.Second), label)
	if done >= total {
		fmt.Fprint(w, "\r\033[K")
	}
}

// single is one planned experiment as a suite of one.
func single(p driver.Plan, err error) (experiments.Suite, error) {
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, progress driver.Progress) ([]*results.Experiment, error) {
		exp, err := p(ctx, progress)
		if err != nil {
			return nil, err
		}
		return []*results.Experiment{exp}, nil
	}, nil
}

// measure runs planned experiments the way every measuring command does:
// plan validates the options (bad input: exit 2, naming the flag of the
// field at fault by fields, before anything is measured or written); vet,
// if set, may refuse the result file before the run (run --record); then
// the run goes under a context that SIGINT/SIGTERM cancel, with progress
// on stderr, and the result is rendered and --out written. The result
// file's start time is taken before the experiments run.
func measure(cmd *cobra.Command, of *outputFlags, fields map[string]string, plan func() (experiments.Suite, error), vet func(*results.File) error) (*results.File, error) {
	run, err := plan()
	if err != nil {
		return nil, runErr(err, fields)
	}
	ctx, stop := signalContext()
	defer stop()
	f := newFile(cmd)
	if vet != nil {
		if err := vet(f); err != nil {
			return nil, err
		}
	}
	exps, err := run(ctx, progress(cmd, of))
	if err == nil && ctx.Err() != nil {
		// The signal came as the last round ended: still an
		// interrupted run, written nowhere.
		err = ctx.Err()
	}
	if err != nil {
		return nil, runErr(err, fields)
	}
	f.Experiments = exps
	defer writingResult()()
	return f, emit(cmd, of, f)
}

// experimentCmd is a measuring command of one experiment with Options O:
// its name, its defaults and its plan; command adds its flags. Its texts
// (the one-line summary, the long help, the examples) are help/<use>.txt.
type experimentCmd[O any] struct {
	use string
	// names are the experiment's implementations: {ImplNames} in the help
	// of O's tags.
	names func() []string
	def   func() O
	// quick, if set, gives --quick (QuickOptions).
	quick func() O
	plan  func(O) (driver.Plan, error)
	// renderers are extra --format values the command renders itself.
	renderers map[string]func(io.Writer, *results.File) error
}

// quickUsage is every --quick flag's help: the values are each flag's.
const quickUsage = "a short run: each flag at its --quick value (see its help); a flag given explicitly beats --quick"

// command builds the cobra command: the texts of help/<use>.txt, the
// flags of O's tags (tagged) with their defaults, --quick, the output
// flags; running it reads the options (an explicit flag beats --quick)
// and measures.
func (e experimentCmd[O]) command() *cobra.Command {
	var (
		of      = outputFlags{renderers: e.renderers}
		isQuick bool
		quick   *O
	)
	def := e.def()
	if e.quick != nil {
		q := e.quick()
		quick = &q
	}
	table := tagged[O](e.names())
	t := commandTexts(e.use)
	cmd := &cobra.Command{
		Use: e.use, Short: t.short, Long: t.long, Example: t.example,
		Args: flagsOnly,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := of.check(); err != nil {
				return err
			}
			o, err := table.options(cmd.Flags(), def, quick, isQuick)
			if err != nil {
				return err
			}
			_, err = measure(cmd, &of, table.fields(), func() (experiments.Suite, error) { return single(e.plan(o)) }, nil)
			return err
		},
	}
	table.register(cmd.Flags(), def, quick)
	if quick != nil {
		cmd.Flags().BoolVar(&isQuick, "quick", false, quickUsage)
	}
	addOutputFlags(cmd, &of)
	return cmd
}
