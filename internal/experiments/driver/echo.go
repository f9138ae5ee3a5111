package driver

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// Echo is an experiment's options as its result records them
// (results.Experiment.Options): every field of the struct o that carries
// an `opt:"key"` tag, formatted as text. A field without the tag is not
// echoed (the experiment writes what it computes itself, such as the
// implementations it planned, over the map Echo returns).
//
// Formats: an int as decimal, a bool as true or false, a string as is, a
// time.Duration as its String (0s, 20µs), a slice as its items so
// formatted and joined with commas. Tag options after the key:
//
//   - omitempty: leave the key out when the field is its zero value (an
//     empty slice, 0, false, "");
//   - empty=TEXT: an empty slice or string reads TEXT (latency's gaps:
//     empty=0s);
//   - zero=TEXT: an item of 0 (an int or a duration) reads TEXT (wake's
//     --wakes=0: all; timeout's --timerslack=0: default).
//
// Echo panics on a field type it does not know: a tag on one is a
// programming error that the experiment's own test finds at once.
func Echo(o any) map[string]string {
	v := reflect.ValueOf(o)
	t := v.Type()
	m := map[string]string{}
	for i := range t.NumField() {
		tag, ok := t.Field(i).Tag.Lookup("opt")
		if !ok {
			continue
		}
		key, rest, _ := strings.Cut(tag, ",")
		var omitempty bool
		var empty, zero string
		var hasEmpty, hasZero bool
		for _, opt := range strings.Split(rest, ",") {
			switch {
			case opt == "omitempty":
				omitempty = true
			case strings.HasPrefix(opt, "empty="):
				empty, hasEmpty = strings.TrimPrefix(opt, "empty="), true
			case strings.HasPrefix(opt, "zero="):
				zero, hasZero = strings.TrimPrefix(opt, "zero="), true
			case opt != "":
				panic(fmt.Sprintf("driver.Echo: %s.%s: unknown tag option %q", t.Name(), t.Field(i).Name, opt))
			}
		}
		f := v.Field(i)
		if omitempty && (f.IsZero() || f.Kind() == reflect.Slice && f.Len() == 0) {
			continue
		}
		item := func(x reflect.Value) string {
			if hasZero && x.CanInt() && x.Int() == 0 {
				return zero
			}
			return echoValue(x, t.Name()+"."+t.Field(i).Name)
		}
		var s string
		if f.Kind() == reflect.Slice {
			items := make([]string, f.Len())
			for j := range items {
				items[j] = item(f.Index(j))
			}
			s = strings.Join(items, ",")
		} else {
			s = item(f)
		}
		if s == "" && hasEmpty {
			s = empty
		}
		m[key] = s
	}
	return m
}

var durationType = reflect.TypeFor[time.Duration]()

// echoValue formats one scalar of Echo.
func echoValue(x reflect.Value, where string) string {
	if x.Type() == durationType {
		return time.Duration(x.Int()).String()
	}
	switch x.Kind() {
	case reflect.Int:
		return strconv.Itoa(int(x.Int()))
	case reflect.Bool:
		return strconv.FormatBool(x.Bool())
	case reflect.String:
		return x.String()
	}
	panic(fmt.Sprintf("driver.Echo: %s: cannot echo a %s", where, x.Type()))
}
