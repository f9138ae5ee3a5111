package results

import (
	"strings"
	"testing"
)

func TestBesidePort(t *testing.T) {
	c := func(key, kind string) *Config {
		impl, _, _ := strings.Cut(key, "/")
		return &Config{Key: key, Impl: impl, Kind: kind}
	}
	cs := []*Config{
		c("lot/cross-core", "thread"), c("futex/cross-core", "thread"), c("lot/same-core", "thread"),
		c("c-futex/cross-core", KindCRef), c("rust-parking_lot/cross-core", "plugin"),
		c("rust-crossbeam/cross-core", "plugin"), c("c-rust-parking_lot/cross-core", KindCRef),
		// no lot row in this group: stays where it is
		c("rust-parking_lot/unpinned", "plugin"),
		// a Go row that only looks like the C row's name: not moved
		c("c-rust-parking_lot/same-core", "thread"),
	}
	var got []string
	for _, x := range BesidePort(cs) {
		got = append(got, x.Key)
	}
	want := []string{"lot/cross-core", "rust-parking_lot/cross-core", "c-rust-parking_lot/cross-core", "futex/cross-core", "lot/same-core",
		"c-futex/cross-core", "rust-crossbeam/cross-core", "rust-parking_lot/unpinned", "c-rust-parking_lot/same-core"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("order\n got %v\nwant %v", got, want)
	}
	if cs[1].Key != "futex/cross-core" {
		t.Error("the input was modified")
	}
	plain := cs[:3]
	if out := BesidePort(plain); &out[0] != &plain[0] {
		t.Error("nothing to move, but a copy was made")
	}
}
