// Package textfmt keeps what parkbench prints for people within a
// terminal's width: word wrapping with a hanging indent, tables that drop
// their least important columns until they fit (the dropped ones are named,
// and --wide shows them), and configuration keys shortened by the parts
// every row shares.
//
// The limit is fixed (Columns), not the terminal's width: a report piped to
// a file, a CI log or a pager reads the same as on the screen, and a golden
// file can pin it.
package textfmt

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/mattn/go-runewidth"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Columns is the widest line the default output may print.
const Columns = 120

// Width is the display width of s in terminal columns (µ and the box
// drawing characters count one, an emoji two).
func Width(s string) int { return runewidth.StringWidth(s) }

// MaxWidth is the width of the widest line of s.
func MaxWidth(s string) int {
	m := 0
	for _, l := range strings.Split(s, "\n") {
		m = max(m, Width(l))
	}
	return m
}

// Wrap word-wraps text into lines of at most width columns: the first
// line starts with first, the others with rest (a hanging indent). A word
// longer than a whole line is cut after its last '/' or ',' that fits, or
// at the width. Existing newlines in text start new lines (indented with
// rest). The result ends without a newline.
func Wrap(text string, width int, first, rest string) string {
	var b strings.Builder
	prefix := first
	for i, para := range strings.Split(text, "\n") {
		if i > 0 {
			b.WriteByte('\n')
			prefix = rest
		}
		wrapPara(&b, para, width, prefix, rest)
	}
	return b.String()
}

func wrapPara(b *strings.Builder, text string, width int, first, rest string) {
	line, lineW := first, Width(first)
	empty := true // nothing but the prefix on this line yet
	flush := func() {
		b.WriteString(strings.TrimRight(line, " "))
	}
	newLine := func() {
		flush()
		b.WriteByte('\n')
		line, lineW, empty = rest, Width(rest), true
	}
	for _, word := range strings.Fields(text) {
		ww := Width(word)
		sep := 1
		if empty {
			sep = 0
		}
		if !empty && lineW+sep+ww > width {
			newLine()
			sep = 0
		}
		// A word longer than a whole line: cut it.
		for lineW+sep+ww > width && width-lineW-sep > 8 {
			head, tail := cut(word, width-lineW-sep)
			if sep == 1 {
				line += " "
			}
			line += head
			newLine()
			sep = 0
			word, ww = tail, Width(tail)
		}
		if sep == 1 {
			line += " "
			lineW++
		}
		line += word
		lineW += ww
		empty = false
	}
	flush()
}

// cut splits word so that head fits in n columns, after its last '/' or
// ',' when there is one in the second half.
func cut(word string, n int) (head, tail string) {
	rs := []rune(word)
	end, w := 0, 0
	for end < len(rs) {
		rw := runewidth.RuneWidth(rs[end])
		if w+rw > n {
			break
		}
		w += rw
		end++
	}
	for i := end - 1; i > end/2; i-- {
		if rs[i] == '/' || rs[i] == ',' {
			end = i + 1
			break
		}
	}
	return string(rs[:end]), string(rs[end:])
}

// Table is a table of strings. Keep[i] marks column i as never dropped
// (the row labels, the main figures); the others are dropped from the
// right, lowest priority first, until the table fits.
type Table struct {
	Header []string
	Rows   [][]string
	// Priority of each column: 0 is never dropped; a higher number is
	// dropped before a lower one; equal priorities drop the rightmost
	// first.
	Priority []int
}

// Render writes t as a box table (md false) or a markdown table. With a
// limit > 0, columns are dropped, as Priority says, until the table is at
// most limit columns wide (or only the never-dropped columns are left);
// dropped lists the headers of the columns left out.
func (t Table) Render(w interface{ Write([]byte) (int, error) }, md bool, limit int) (dropped []string, err error) {
	keep := make([]bool, len(t.Header))
	for i := range keep {
		keep[i] = true
	}
	for {
		out, err := t.render(keep, md)
		if err != nil {
			return nil, err
		}
		if limit <= 0 || MaxWidth(strings.TrimRight(string(out), "\n")) <= limit {
			_, err = w.Write(out)
			return dropped, err
		}
		drop := -1
		for i := range t.Header {
			if !keep[i] || i >= len(t.Priority) || t.Priority[i] == 0 {
				continue
			}
			if drop < 0 || t.Priority[i] >= t.Priority[drop] {
				drop = i
			}
		}
		if drop < 0 {
			_, err = w.Write(out)
			return dropped, err
		}
		keep[drop] = false
		dropped = append(dropped, t.Header[drop])
	}
}

func (t Table) render(keep []bool, md bool) ([]byte, error) {
	var buf bytes.Buffer
	opts := []tablewriter.Option{tablewriter.WithHeaderAutoFormat(tw.Off)}
	if md {
		opts = append(opts, tablewriter.WithRenderer(renderer.NewMarkdown()))
	}
	tb := tablewriter.NewTable(&buf, opts...)
	pick := func(cells []string) []any {
		var out []any
		for i, c := range cells {
			if i < len(keep) && !keep[i] {
				continue
			}
			out = append(out, c)
		}
		return out
	}
	tb.Header(pick(t.Header)...)
	for _, r := range t.Rows {
		if err := tb.Append(pick(r)...); err != nil {
			return nil, err
		}
	}
	if err := tb.Render(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// ShortKeys shortens configuration keys ("impl/placement/name=value/...")
// by the segments every key shares: a segment is the same in every key
// when it has the same name (the part before '=') or, unnamed, the same
// position, and the same value. The first segment (the implementation) is
// never dropped, and nothing is dropped from fewer than two keys. common
// lists the dropped segments in the order of the first key.
func ShortKeys(keys []string) (short []string, common []string) {
	short = append([]string(nil), keys...)
	if len(keys) < 2 {
		return short, nil
	}
	type seg struct{ id, text string }
	parse := func(k string) []seg {
		parts := strings.Split(k, "/")
		out := make([]seg, len(parts))
		for i, p := range parts {
			id := "#" + strconv.Itoa(i)
			if name, _, ok := strings.Cut(p, "="); ok && i > 0 {
				id = name + "="
			}
			out[i] = seg{id, p}
		}
		return out
	}
	parsed := make([][]seg, len(keys))
	for i, k := range keys {
		parsed[i] = parse(k)
	}
	drop := map[seg]bool{}
	for _, s := range parsed[0][1:] {
		everywhere := true
		for _, p := range parsed[1:] {
			found := false
			for j, q := range p {
				if j > 0 && q == s {
					found = true
					break
				}
			}
			if !found {
				everywhere = false
				break
			}
		}
		if everywhere {
			drop[s] = true
			common = append(common, s.text)
		}
	}
	if len(drop) == 0 {
		return short, nil
	}
	for i, p := range parsed {
		var kept []string
		for j, s := range p {
			if j == 0 || !drop[s] {
				kept = append(kept, s.text)
			}
		}
		short[i] = strings.Join(kept, "/")
	}
	return short, common
}
