package textfmt

import (
	"slices"
	"strings"
	"testing"
)

func TestWrap(t *testing.T) {
	text := "claim E12-same-order: HOLDS: the sleeping implementations are within one order of magnitude of each other"
	got := Wrap(text, 40, "  ", "      ")
	for _, l := range strings.Split(got, "\n") {
		if Width(l) > 40 {
			t.Errorf("line %q is %d wide", l, Width(l))
		}
	}
	if !strings.HasPrefix(got, "  claim") || !strings.Contains(got, "\n      ") {
		t.Errorf("indent lost:\n%s", got)
	}
	if strings.Join(strings.Fields(got), " ") != text {
		t.Errorf("words lost or changed:\n%s", got)
	}
	// A word longer than a line is cut at a '/' where it can be.
	long := "futex-broadcast/unpinned/notify=notify-all/lock-held=true/n=64/and/more/parts"
	got = Wrap(long, 30, "", "  ")
	for _, l := range strings.Split(got, "\n") {
		if Width(l) > 30 {
			t.Errorf("long word: line %q is %d wide", l, Width(l))
		}
	}
	if strings.ReplaceAll(strings.ReplaceAll(got, "\n", ""), " ", "") != long {
		t.Errorf("long word changed: %q", got)
	}
	// µ counts one column.
	if Width("1.6 µs") != 6 {
		t.Errorf("Width(1.6 µs) = %d", Width("1.6 µs"))
	}
}

func TestShortKeys(t *testing.T) {
	keys := []string{
		"lot/unpinned/notify=notify-all/lock-held=true/n=1",
		"futex/unpinned/notify=notify-all/lock-held=true/n=1",
		"lot/unpinned/notify=notify-all/lock-held=true/n=64",
	}
	short, common := ShortKeys(keys)
	if want := []string{"lot/n=1", "futex/n=1", "lot/n=64"}; !slices.Equal(short, want) {
		t.Errorf("short = %v, want %v", short, want)
	}
	if want := []string{"unpinned", "notify=notify-all", "lock-held=true"}; !slices.Equal(common, want) {
		t.Errorf("common = %v, want %v", common, want)
	}
	// The implementation stays even when every key has it; a named
	// segment in only some keys stays.
	short, common = ShortKeys([]string{"futex/cross-core", "futex/cross-core/gap=50µs"})
	if want := []string{"futex", "futex/gap=50µs"}; !slices.Equal(short, want) || !slices.Equal(common, []string{"cross-core"}) {
		t.Errorf("short = %v common %v", short, common)
	}
	if short, common := ShortKeys([]string{"futex/cross-core"}); short[0] != "futex/cross-core" || common != nil {
		t.Errorf("one key shortened: %v %v", short, common)
	}
}

func TestTableFits(t *testing.T) {
	tb := Table{
		Header:   []string{"config", "main", "judged", "other one", "other two"},
		Priority: []int{0, 0, 1, 2, 2},
	}
	for range 3 {
		tb.Rows = append(tb.Rows, []string{"futex/cross-core", "21.41", "463.87", strings.Repeat("x", 30), strings.Repeat("y", 30)})
	}
	var b strings.Builder
	dropped, err := tb.Render(&b, false, 80)
	if err != nil {
		t.Fatal(err)
	}
	if MaxWidth(strings.TrimSpace(b.String())) > 80 {
		t.Errorf("table wider than 80:\n%s", b.String())
	}
	// The rightmost of the lowest priority goes first.
	if !slices.Equal(dropped, []string{"other two"}) {
		t.Errorf("dropped %v", dropped)
	}
	b.Reset()
	dropped, _ = tb.Render(&b, false, 10)
	if !slices.Equal(dropped, []string{"other two", "other one", "judged"}) || !strings.Contains(b.String(), "main") {
		t.Errorf("at 10 columns dropped %v:\n%s", dropped, b.String())
	}
	b.Reset()
	if dropped, _ = tb.Render(&b, false, 0); dropped != nil || !strings.Contains(b.String(), "other two") {
		t.Errorf("no limit dropped %v", dropped)
	}
}
