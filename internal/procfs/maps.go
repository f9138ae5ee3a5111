package procfs

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Mapping is one line of /proc/self/maps.
type Mapping struct {
	Start, End uint64
	Perms      string
	Path       string // "" for anonymous memory, "[heap]", "[stack]", a file
}

// ParseMaps decodes /proc/PID/maps.
func ParseMaps(s string) ([]Mapping, error) {
	var out []Mapping
	for _, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		if !ok {
			return nil, fmt.Errorf("procfs: malformed maps line %q", trim(line))
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("procfs: malformed maps line %q", trim(line))
		}
		m := Mapping{Start: start, End: end, Perms: f[1]}
		if len(f) >= 6 {
			m.Path = strings.Join(f[5:], " ")
		}
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out, nil
}

// FindMapping returns the mapping that holds addr.
func FindMapping(maps []Mapping, addr uint64) (Mapping, bool) {
	i := sort.Search(len(maps), func(i int) bool { return maps[i].End > addr })
	if i < len(maps) && maps[i].Start <= addr {
		return maps[i], true
	}
	return Mapping{}, false
}

// Describe says in words what kind of memory a mapping is.
func (m Mapping) Describe() string {
	switch {
	case m.Path == "":
		return "anonymous mapping " + m.Perms + " (Go heap arena, a thread stack, or C malloc arena)"
	case m.Path == "[heap]":
		return "[heap] (C malloc: memory glibc/cgo allocated)"
	case m.Path == "[stack]":
		return "[stack] (main thread's C stack)"
	case strings.HasPrefix(m.Path, "["):
		return m.Path
	}
	return "file mapping " + m.Path + " " + m.Perms + " (static data of that binary)"
}

// Region is a known object in memory, for naming the address a thread waits
// on: [Addr, Addr+Size).
type Region struct {
	Label string
	Addr  uint64
	Size  uint64
}

// Match describes the smallest region holding addr, as "label" or
// "label (+off)", and reports whether one did.
func Match(regions []Region, addr uint64) (string, bool) {
	best := -1
	for i, r := range regions {
		if addr >= r.Addr && addr < r.Addr+r.Size && (best < 0 || r.Size < regions[best].Size) {
			best = i
		}
	}
	if best < 0 {
		return "", false
	}
	r := regions[best]
	if off := addr - r.Addr; off != 0 {
		return fmt.Sprintf("%s (+%d)", r.Label, off), true
	}
	return r.Label, true
}
