package procfs

import (
	"debug/elf"
	"fmt"
	"sort"
)

// Symbols names addresses in a binary's static data (.data, .bss: Go
// runtime globals such as runtime.m0 or runtime.sched), so a futex word
// there can be named.
type Symbols struct {
	syms []elf.Symbol // data objects, by address
	bias uint64       // load address minus link address (PIE)
}

// LoadSymbols reads the data symbols of the ELF file at path; bias is added
// to every symbol value (0 for a non-PIE executable).
func LoadSymbols(path string, bias uint64) (*Symbols, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	all, err := f.Symbols()
	if err != nil {
		return nil, fmt.Errorf("procfs: %s: %w", path, err)
	}
	s := &Symbols{bias: bias}
	for _, sym := range all {
		if elf.ST_TYPE(sym.Info) == elf.STT_OBJECT && sym.Size > 0 {
			s.syms = append(s.syms, sym)
		}
	}
	sort.Slice(s.syms, func(i, j int) bool { return s.syms[i].Value < s.syms[j].Value })
	return s, nil
}

// Lookup returns "name" or "name+off" for the data symbol holding addr.
func (s *Symbols) Lookup(addr uint64) (string, bool) {
	if s == nil || addr < s.bias {
		return "", false
	}
	a := addr - s.bias
	i := sort.Search(len(s.syms), func(i int) bool { return s.syms[i].Value > a }) - 1
	if i < 0 {
		return "", false
	}
	sym := s.syms[i]
	if a >= sym.Value+sym.Size {
		return "", false
	}
	if off := a - sym.Value; off != 0 {
		return fmt.Sprintf("%s+%d", sym.Name, off), true
	}
	return sym.Name, true
}
