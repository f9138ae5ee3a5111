package driver

import (
	"cmp"
	"slices"
)

// Lists of option values hold each value once. A list the user gave is
// refused when it names one value twice (the command checks the parsed
// values with Repeat: 1ms and 1000us are one duration, 01 and 1 one
// count), since each value is one configuration and two equal ones would
// share a key. A list the program builds may repeat a value and is
// de-duplicated with Distinct: the defaults 1, 2, NumCPU on a 2-CPU
// machine, or one configuration a plan reaches by two paths.

// Repeat finds the first value of v equal to an earlier one: that earlier
// one's index and its own. ok is false when every value is distinct.
func Repeat[T comparable](v []T) (first, again int, ok bool) {
	seen := make(map[T]int, len(v))
	for i, x := range v {
		if j, dup := seen[x]; dup {
			return j, i, true
		}
		seen[x] = i
	}
	return 0, 0, false
}

// Distinct is v without repeats: each value at its first place, in order.
// v is not modified.
func Distinct[T comparable](v []T) []T {
	return DistinctBy(v, func(x T) T { return x })
}

// DistinctBy is v without the elements whose key an earlier one has, in
// order. v is not modified.
func DistinctBy[T any, K comparable](v []T, key func(T) K) []T {
	seen := make(map[K]bool, len(v))
	var out []T
	for _, x := range v {
		if k := key(x); !seen[k] {
			seen[k] = true
			out = append(out, x)
		}
	}
	return out
}

// SortedDistinct is v's distinct values in ascending order. v is not
// modified.
func SortedDistinct[T cmp.Ordered](v []T) []T {
	s := Distinct(v)
	slices.Sort(s)
	return s
}
