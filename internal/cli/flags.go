package cli

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/parkbench/parkbench/internal/experiments/driver"
)

// This file is every measuring command's flag plumbing, once. A command
// declares a table of flagDef, one per flag: its name, the Options field
// it sets, its usage, and how its text is read into the field. From the
// table come, with nothing restated:
//
//   - the flags, with their defaults read from the experiment's
//     DefaultOptions (and " (--quick: V)" from its QuickOptions where the
//     two differ);
//   - the options of a run: DefaultOptions, or QuickOptions under --quick,
//     then every flag the user gave, whatever --quick says (one rule: an
//     explicit flag beats --quick);
//   - the field -> flag map that turns a driver.OptionError ("Impls: ...")
//     into a message naming the flag ("--impl: ...").

// flagDef binds one flag to the Options field(s) of O it sets.
type flagDef[O any] struct {
	name   string   // without "--"
	fields []string // the Options fields it sets, as a driver.OptionError names them
	usage  string
	typ    string // what help shows: int, duration, string (lists too), bool
	// check, if set, refuses a text when the flag is parsed, as pflag's own
	// typed flags do (ints, durations, bools).
	check func(string) error
	// get formats the field as flag text (the defaults shown in help);
	// set reads the flag's text into o, a usage error naming the flag
	// when the text is bad.
	get func(*O) string
	set func(*O, string) error
}

// also makes f set one more field: copy copies the value f set into it
// (latency's --warmup sets Warmup and GapWarmup).
func (f flagDef[O]) also(field string, copy func(*O)) flagDef[O] {
	f.fields = append(slices.Clone(f.fields), field)
	set := f.set
	f.set = func(o *O, s string) error {
		if err := set(o, s); err != nil {
			return err
		}
		copy(o)
		return nil
	}
	return f
}

// scalar builds a flag for one value of type T, which get reads from the
// options and put stores into them.
func scalar[O, T any](name, field, usage, typ string, get func(*O) T, put func(*O, T), format func(T) string, parse func(string) (T, error)) flagDef[O] {
	return flagDef[O]{
		name: name, fields: []string{field}, usage: usage, typ: typ,
		check: func(s string) error { _, err := parse(s); return err },
		get:   func(o *O) string { return format(get(o)) },
		set: func(o *O, s string) error {
			v, err := parse(s)
			if err != nil {
				return usagef("invalid --%s %q: %v", name, s, err)
			}
			put(o, v)
			return nil
		},
	}
}

// field is scalar for a field of the options.
func field[O, T any](name, fieldName, usage, typ string, p func(*O) *T, format func(T) string, parse func(string) (T, error)) flagDef[O] {
	return scalar(name, fieldName, usage, typ, func(o *O) T { return *p(o) }, func(o *O, v T) { *p(o) = v }, format, parse)
}

// parseInt reads every integer flag's text, one value or a list's item
// (the measuring commands' and ab's): a decimal whole number. Its errors
// say what is wrong with the text, apart from the flag's own bounds (the
// experiment checks those): "want a whole number" for text that is not
// one, "out of range" for one too large for any count, so that
// 99999999999999999999 is not called "not a whole number".
func parseInt(s string) (int, error) {
	v, err := strconv.ParseInt(strings.TrimSpace(s), 10, strconv.IntSize)
	if errors.Is(err, strconv.ErrRange) {
		if strings.HasPrefix(strings.TrimSpace(s), "-") {
			return 0, fmt.Errorf("out of range: a whole number below %d", math.MinInt)
		}
		return 0, fmt.Errorf("out of range: a whole number above %d", math.MaxInt)
	}
	if err != nil {
		return 0, errors.New("want a whole number")
	}
	return int(v), nil
}

// intValue is a pflag int flag read by parseInt (ab's flags; the
// measuring commands' go through their flag tables).
type intValue struct{ p *int }

func (v intValue) String() string {
	if v.p == nil {
		return "0"
	}
	return strconv.Itoa(*v.p)
}
func (intValue) Type() string { return "int" }
func (v intValue) Set(s string) error {
	n, err := parseInt(s)
	if err != nil {
		return err
	}
	*v.p = n
	return nil
}

// intVar is pflag's IntVar with parseInt's errors.
func intVar(fs *pflag.FlagSet, p *int, name string, def int, usage string) {
	*p = def
	fs.Var(intValue{p}, name, usage)
}

// intFlag, durationFlag, boolFlag and stringFlag are one value each; their
// parse errors read as pflag's own ("invalid argument "x" for "--rounds"
// flag: want a whole number").
func intFlag[O any](name, fieldName, usage string, p func(*O) *int) flagDef[O] {
	return field(name, fieldName, usage, "int", p, strconv.Itoa, parseInt)
}

func durationFlag[O any](name, fieldName, usage string, p func(*O) *time.Duration) flagDef[O] {
	return field(name, fieldName, usage, "duration", p, formatDuration, time.ParseDuration)
}

func boolFlag[O any](name, fieldName, usage string, p func(*O) *bool) flagDef[O] {
	return field(name, fieldName, usage, "bool", p, strconv.FormatBool, strconv.ParseBool)
}

func stringFlag[O any](name, fieldName, usage string, p func(*O) *string) flagDef[O] {
	f := field(name, fieldName, usage, "string", p, func(s string) string { return s }, func(s string) (string, error) { return s, nil })
	f.check = nil
	return f
}

// formatDuration is a duration as a flag's text: 0 for none, so that help
// does not show a zero default.
func formatDuration(d time.Duration) string {
	if d == 0 {
		return "0"
	}
	return d.String()
}

// list builds a flag for a comma list of T. An empty list is refused
// ("--impl is empty"); an item that does not read says which and what is
// wanted; two items that read as one value are refused (onceEach).
func list[O any, T comparable](name, field, usage string, p func(*O) *[]T, format func(T) string, parse func(string) (T, error), want string) flagDef[O] {
	return flagDef[O]{
		name: name, fields: []string{field}, usage: usage, typ: "string",
		get: func(o *O) string {
			var s []string
			for _, v := range *p(o) {
				s = append(s, format(v))
			}
			return strings.Join(s, ",")
		},
		set: func(o *O, s string) error {
			items := splitList(s)
			if len(items) == 0 {
				return usagef("--%s is empty; give a value, a comma list%s", name, want)
			}
			out := make([]T, 0, len(items))
			for _, it := range items {
				v, err := parse(it)
				if err != nil {
					return usagef("invalid --%s item %q: %v", name, it, err)
				}
				out = append(out, v)
			}
			if err := onceEach(name, items, out); err != nil {
				return err
			}
			*p(o) = out
			return nil
		},
	}
}

// namesFlag is a comma list of names (implementations, placements, modes),
// checked by the experiment: "all" is one of its names.
func namesFlag[O any](name, field, usage string, p func(*O) *[]string) flagDef[O] {
	return list(name, field, usage, p, func(s string) string { return s }, func(s string) (string, error) { return s, nil }, ", or all")
}

// optionalNamesFlag is a comma list of names that may be empty (none: lock's
// --lot-parker).
func optionalNamesFlag[O any](name, field, usage string, p func(*O) *[]string) flagDef[O] {
	f := namesFlag(name, field, usage, p)
	f.set = func(o *O, s string) error {
		items := splitList(s)
		if err := onceEach(name, items, items); err != nil {
			return err
		}
		*p(o) = items
		return nil
	}
	return f
}

func intsFlag[O any](name, field, usage string, p func(*O) *[]int) flagDef[O] {
	return list(name, field, usage, p, strconv.Itoa, parseInt, "")
}

func durationsFlag[O any](name, field, usage string, p func(*O) *[]time.Duration) flagDef[O] {
	return list(name, field, usage, p, formatDuration, func(s string) (time.Duration, error) {
		d, err := time.ParseDuration(s)
		if err != nil {
			return 0, fmt.Errorf("want a duration such as 0, 100ns, 50us or 1ms")
		}
		return d, nil
	}, "")
}

func boolsFlag[O any](name, field, usage string, p func(*O) *[]bool) flagDef[O] {
	return list(name, field, usage, p, strconv.FormatBool, func(s string) (bool, error) {
		b, err := strconv.ParseBool(s)
		if err != nil {
			return false, fmt.Errorf("want true or false")
		}
		return b, nil
	}, "")
}

// flagTable is one command's flags.
type flagTable[O any] []flagDef[O]

// textValue is a flag's text as the user gave it; the table reads it into
// the Options when the command runs.
type textValue struct {
	text, typ string
	check     func(string) error
}

func (v *textValue) String() string { return v.text }
func (v *textValue) Type() string   { return v.typ }
func (v *textValue) Set(s string) error {
	if v.check != nil {
		if err := v.check(s); err != nil {
			return err
		}
	}
	v.text = s
	return nil
}

// boolValue is a textValue that may stand alone (--quick, not --quick=true).
type boolValue struct{ textValue }

func (*boolValue) IsBoolFlag() bool { return true }

// register adds the table's flags to fs, with the defaults of def and,
// where quick (if not nil) differs, its value in the usage.
func (t flagTable[O]) register(fs *pflag.FlagSet, def O, quick *O) {
	for _, f := range t {
		d := f.get(&def)
		usage := f.usage
		if quick != nil {
			if q := f.get(quick); q != d {
				usage += fmt.Sprintf(" (--quick: %s)", q)
			}
		}
		tv := textValue{text: d, typ: f.typ, check: f.check}
		var v pflag.Value = &tv
		if f.typ == "bool" {
			v = &boolValue{tv}
		}
		fl := fs.VarPF(v, f.name, "", usage)
		if f.typ == "bool" {
			fl.NoOptDefVal = "true"
		}
	}
}

// options returns the options of a run: quick under --quick (def
// otherwise), then every flag of the table the user gave.
func (t flagTable[O]) options(fs *pflag.FlagSet, def O, quick *O, isQuick bool) (O, error) {
	o := def
	if isQuick && quick != nil {
		o = *quick
	}
	for _, f := range t {
		if fl := fs.Lookup(f.name); fl != nil && fl.Changed {
			if err := f.set(&o, fl.Value.String()); err != nil {
				return o, err
			}
		}
	}
	return o, nil
}

// fields maps every Options field the table sets to its flag.
func (t flagTable[O]) fields() map[string]string {
	m := map[string]string{}
	for _, f := range t {
		for _, field := range f.fields {
			m[field] = f.name
		}
	}
	return m
}

// flagError names the flag of an option error: "--hold: invalid hold 2s:
// must be between 0 and 1s". A field without a flag keeps the message.
func flagError(oe *driver.OptionError, fields map[string]string) error {
	if f, ok := fields[oe.Field]; ok {
		return fmt.Errorf("--%s: %w", f, oe)
	}
	return oe
}

// onceEach refuses a list flag whose items name one value twice, compared
// as parsed (vals[i] is what items[i] reads as: 1ms and 1000us, or 01 and
// 1, are one value): each value is one configuration, two equal ones would
// share a key, and compare would silently collapse them.
func onceEach[T comparable](name string, items []string, vals []T) error {
	first, again, dup := driver.Repeat(vals)
	switch {
	case !dup:
		return nil
	case items[first] == items[again]:
		return usagef("--%s names %s twice; each value is one configuration, give it once", name, items[first])
	}
	return usagef("--%s names one value twice (%s and %s); each value is one configuration, give it once", name, items[first], items[again])
}

// splitList parses a comma list flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
