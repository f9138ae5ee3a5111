package cli

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/parkbench/parkbench/internal/experiments/driver"
)

// This file is every measuring command's flag plumbing, once. An
// experiment declares each option once, on its field of the Options type:
//
//	Rounds int `flag:"rounds" help:"rounds per configuration" opt:"rounds"`
//
// flag is the flag's name (without "--"), help its usage and opt the key
// the result echoes it under (driver.Echo; often not the flag's name:
// latency's --impl is echoed as impls). tagged reads the tags into a
// table of flagDef, one per flag, and from the table come, with nothing
// restated:
//
//   - the flags, typed by their fields (an int, a bool, a string, a
//     time.Duration; a slice of one of them is a comma list), with their
//     defaults read from the experiment's DefaultOptions (and
//     " (--quick: V)" from its QuickOptions where the two differ);
//   - the options of a run: DefaultOptions, or QuickOptions under --quick,
//     then every flag the user gave, whatever --quick says (one rule: an
//     explicit flag beats --quick);
//   - the field -> flag map that turns a driver.OptionError ("Impls: ...")
//     into a message naming the flag ("--impl: ..."): the field's Go name
//     from reflection.
//
// What one tag cannot say:
//
//   - {Name} in help is FlagVars()[Name] of the Options type, as fmt.Sprint
//     writes it, a []string joined with ", ": what only the program knows
//     (a limit such as herd.MaxWaiters); {ImplNames} is the names of the
//     experiment's implementations, which its command gives (every
//     experiment has them: experimentCmd.names), not each Options type;
//   - placeholder:"NAME": the first NAME of help is the value's name in
//     the usage line (pflag's back-quoted word: "--impl NAME");
//   - flag:"name,empty-ok": a list of names that may be empty (none:
//     lock's --lot-parker);
//   - a field tagged with the name of a flag declared above it, and no
//     help of its own, is set by that flag too, to the same value
//     (latency's --warmup sets Warmup and GapWarmup);
//   - a list whose type has the methods of itemText reads and shows its
//     items so (timeout.Slacks' "default", spin.Budgets' "unbounded").

// flagDef binds one flag to the Options field(s) it sets. It reads and
// sets them through reflection on the Options struct (o: the addressable
// struct value), not through a type parameter: a parameter per Options
// type made the compiler build every field's reader and setter once per
// command (1,458 of the package's 1,711 functions were instantiations).
type flagDef struct {
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
	get func(o reflect.Value) string
	set func(o reflect.Value, text string) error
}

// flagVars is the method of an Options type whose flags' help names what
// is known at run time only ({Name} in a help tag).
type flagVars interface{ FlagVars() map[string]any }

// itemText is the methods of a list field's type that read and show its
// items, where the element type's own text is not enough.
type itemText[T any] interface {
	ParseItem(string) (T, error)
	FormatItem(T) string
}

// helpVar is {Name} in a help tag.
var helpVar = regexp.MustCompile(`\{[A-Za-z]+\}`)

// tagged is the flag table of the Options type O, from the tags of its
// fields (see the top of this file), {ImplNames} in help read as
// implNames (nil: O's help names none). A tag it cannot read panics: a
// programming error, which building the command (every help test) finds.
func tagged[O any](implNames []string) flagTable[O] {
	t := reflect.TypeFor[O]()
	vars := map[string]any{}
	if v, ok := any(*new(O)).(flagVars); ok {
		maps.Copy(vars, v.FlagVars())
	}
	if implNames != nil {
		vars["ImplNames"] = implNames
	}
	var table flagTable[O]
	first := map[string]reflect.StructField{} // each flag's field with its help
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, ok := sf.Tag.Lookup("flag")
		if !ok {
			continue
		}
		where := t.Name() + "." + sf.Name
		name, opt, _ := strings.Cut(tag, ",")
		help, hasHelp := sf.Tag.Lookup("help")
		if from, ok := first[name]; ok {
			if hasHelp || opt != "" || sf.Type != from.Type {
				panic(fmt.Sprintf("cli: %s: --%s is %s's already: a second field it sets has its type and no help or options of its own", where, name, from.Name))
			}
			j := slices.IndexFunc(table, func(f flagDef) bool { return f.name == name })
			table[j] = alsoSets(table[j], from, sf)
			continue
		}
		if !hasHelp || name == "" {
			panic(fmt.Sprintf("cli: %s: a flag tag wants a name and a help tag", where))
		}
		if opt != "" && (opt != "empty-ok" || sf.Type != reflect.TypeFor[[]string]()) {
			panic(fmt.Sprintf("cli: %s: unknown flag option %q (empty-ok: a []string that may be empty)", where, opt))
		}
		first[name] = sf
		f := fieldFlag(sf, name, flagUsage(where, help, sf.Tag.Get("placeholder"), vars), opt == "empty-ok")
		f.fields = []string{sf.Name}
		table = append(table, f)
	}
	return table
}

// flagUsage is a help tag as the flag's usage: placeholder back-quoted
// (pflag's name of the value), then every {Name} replaced by its value.
func flagUsage(where, help, placeholder string, vars map[string]any) string {
	if placeholder != "" {
		i := strings.Index(help, placeholder)
		if i < 0 {
			panic(fmt.Sprintf("cli: %s: placeholder %q is not in its help", where, placeholder))
		}
		help = help[:i] + "`" + placeholder + "`" + help[i+len(placeholder):]
	}
	return helpVar.ReplaceAllStringFunc(help, func(m string) string {
		v, ok := vars[m[1:len(m)-1]]
		if !ok {
			panic(fmt.Sprintf("cli: %s: help names %s, which the type's FlagVars does not give", where, m))
		}
		if names, ok := v.([]string); ok {
			return strings.Join(names, ", ")
		}
		return fmt.Sprint(v)
	})
}

// alsoSets makes f, which sets the field from, set to as well, to the
// same value (latency's --warmup: Warmup and GapWarmup).
func alsoSets(f flagDef, from, to reflect.StructField) flagDef {
	f.fields = append(slices.Clone(f.fields), to.Name)
	set := f.set
	f.set = func(o reflect.Value, s string) error {
		if err := set(o, s); err != nil {
			return err
		}
		o.FieldByIndex(to.Index).Set(o.FieldByIndex(from.Index))
		return nil
	}
	return f
}

// fieldFlag is the flag of the field sf, by its type: one value (an int,
// a time.Duration, a bool, a string) or a comma list of one of them.
// Their parse errors read as pflag's own ("invalid argument "x" for
// "--rounds" flag: want a whole number"); a list's say which item.
func fieldFlag(sf reflect.StructField, name, usage string, emptyOK bool) flagDef {
	ft := sf.Type
	var f flagDef
	switch {
	case ft == durationType:
		f = fieldScalar(sf, name, usage, "duration", formatDuration, time.ParseDuration)
	case ft.Kind() == reflect.Int:
		f = fieldScalar(sf, name, usage, "int", strconv.Itoa, parseInt)
	case ft.Kind() == reflect.Bool:
		f = fieldScalar(sf, name, usage, "bool", strconv.FormatBool, strconv.ParseBool)
	case ft.Kind() == reflect.String:
		f = fieldScalar(sf, name, usage, "string", func(s string) string { return s }, func(s string) (string, error) { return s, nil })
		f.check = nil
	case ft.Kind() != reflect.Slice:
	case ft.Elem() == durationType:
		f = fieldList(sf, name, usage, formatDuration, parseDurationItem, "")
	case ft.Elem().Kind() == reflect.Int:
		f = fieldList(sf, name, usage, strconv.Itoa, parseInt, "")
	case ft.Elem().Kind() == reflect.Bool:
		f = fieldList(sf, name, usage, strconv.FormatBool, parseBoolItem, "")
	case ft.Elem().Kind() == reflect.String && emptyOK:
		f = optionalNamesFlag(name, usage, fieldAt[[]string](sf))
	case ft.Elem().Kind() == reflect.String:
		f = fieldList(sf, name, usage, func(s string) string { return s }, func(s string) (string, error) { return s, nil }, ", or all")
	}
	if f.set == nil {
		panic(fmt.Sprintf("cli: --%s: a field of type %s cannot be a flag", name, ft))
	}
	return f
}

// fieldAt returns the field sf of the options o, as a *T (a field of a
// named type is its underlying type: spin.Budgets is a []time.Duration).
func fieldAt[T any](sf reflect.StructField) func(o reflect.Value) *T {
	pt := reflect.TypeFor[*T]()
	if !reflect.PointerTo(sf.Type).ConvertibleTo(pt) {
		panic(fmt.Sprintf("cli: field %s (%s) is not a %s", sf.Name, sf.Type, pt.Elem()))
	}
	return func(o reflect.Value) *T {
		return o.FieldByIndex(sf.Index).Addr().Convert(pt).Interface().(*T)
	}
}

// fieldScalar is scalar for the field sf of the options.
func fieldScalar[T any](sf reflect.StructField, name, usage, typ string, format func(T) string, parse func(string) (T, error)) flagDef {
	p := fieldAt[T](sf)
	return scalar(name, usage, typ, func(o reflect.Value) T { return *p(o) }, func(o reflect.Value, v T) { *p(o) = v }, format, parse)
}

// fieldList is list for the field sf of the options: its items read and
// shown by format and parse, or by the field type's itemText methods.
func fieldList[T comparable](sf reflect.StructField, name, usage string, format func(T) string, parse func(string) (T, error), want string) flagDef {
	if it, ok := reflect.Zero(sf.Type).Interface().(itemText[T]); ok {
		format, parse = it.FormatItem, it.ParseItem
	}
	return list(name, usage, fieldAt[[]T](sf), format, parse, want)
}

var durationType = reflect.TypeFor[time.Duration]()

// scalar builds a flag for one value of type T, which get reads from the
// options and put stores into them.
func scalar[T any](name, usage, typ string, get func(reflect.Value) T, put func(reflect.Value, T), format func(T) string, parse func(string) (T, error)) flagDef {
	return flagDef{
		name: name, usage: usage, typ: typ,
		check: func(s string) error { _, err := parse(s); return err },
		get:   func(o reflect.Value) string { return format(get(o)) },
		set: func(o reflect.Value, s string) error {
			v, err := parse(s)
			if err != nil {
				return usagef("invalid --%s %q: %v", name, s, err)
			}
			put(o, v)
			return nil
		},
	}
}

// fieldsSet names the fields of O, at any depth of its structs, that put
// sets: those a zero O has no more after put(1) (run's --rounds sets
// latency's Rounds, herd's Repeats, ...), each name once.
func fieldsSet[O any](put func(*O, int)) []string {
	var o O
	put(&o, 1)
	var names []string
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		for i := range v.NumField() {
			switch f := v.Field(i); {
			case f.Kind() == reflect.Struct:
				walk(f)
			case !f.IsZero() && !slices.Contains(names, v.Type().Field(i).Name):
				names = append(names, v.Type().Field(i).Name)
			}
		}
	}
	walk(reflect.ValueOf(o))
	return names
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
func list[T comparable](name, usage string, p func(reflect.Value) *[]T, format func(T) string, parse func(string) (T, error), want string) flagDef {
	return flagDef{
		name: name, usage: usage, typ: "string",
		get: func(o reflect.Value) string {
			var s []string
			for _, v := range *p(o) {
				s = append(s, format(v))
			}
			return strings.Join(s, ",")
		},
		set: func(o reflect.Value, s string) error {
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

// optionalNamesFlag is a comma list of names that may be empty (none: lock's
// --lot-parker).
func optionalNamesFlag(name, usage string, p func(reflect.Value) *[]string) flagDef {
	f := list(name, usage, p, func(s string) string { return s }, func(s string) (string, error) { return s, nil }, ", or all")
	f.set = func(o reflect.Value, s string) error {
		items := splitList(s)
		if err := onceEach(name, items, items); err != nil {
			return err
		}
		*p(o) = items
		return nil
	}
	return f
}

// parseDurationItem reads a duration list's item.
func parseDurationItem(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("want a duration such as 0, 100ns, 50us or 1ms")
	}
	return d, nil
}

// parseBoolItem reads a bool list's item.
func parseBoolItem(s string) (bool, error) {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return false, fmt.Errorf("want true or false")
	}
	return b, nil
}

// flagTable is the flags of one command, whose options are an O.
type flagTable[O any] []flagDef

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
		d := f.get(reflect.ValueOf(&def).Elem())
		usage := f.usage
		if quick != nil {
			if q := f.get(reflect.ValueOf(quick).Elem()); q != d {
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
			if err := f.set(reflect.ValueOf(&o).Elem(), fl.Value.String()); err != nil {
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
