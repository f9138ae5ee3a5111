package ktrace

import (
	"encoding/binary"
	"testing"

	"golang.org/x/sys/unix"
)

// A ring built by hand: two samples around a PERF_RECORD_LOST, the second
// sample wrapping past the ring's end. Drain must decode both, count the
// loss and give the Lost event the window between them.
func TestDrainRing(t *testing.T) {
	f, _ := ParseFormat(wakingFormat)
	dec, _ := NewDecoder(map[Kind]uint16{Waking: 375}, map[Kind]map[string]Field{Waking: f})
	s := &Session{dec: dec}
	var page unix.PerfEventMmapPage
	data := make([]byte, 1024)
	r := &ring{cpu: 1, page: &page, data: data, hold: -1}

	sample := func(tm int64, pid uint32) []byte {
		raw := make([]byte, 36)
		binary.LittleEndian.PutUint16(raw[0:], 375)
		binary.LittleEndian.PutUint32(raw[24:], pid)
		body := make([]byte, 28+len(raw))
		binary.LittleEndian.PutUint32(body[4:], 77) // tid
		binary.LittleEndian.PutUint64(body[8:], uint64(tm))
		binary.LittleEndian.PutUint32(body[24:], uint32(len(raw)))
		copy(body[28:], raw)
		return record(recordSample, body)
	}
	lost := make([]byte, 16)
	binary.LittleEndian.PutUint64(lost[8:], 3)
	stream := append(append(sample(1000, 11), record(recordLost, lost)...), sample(2000, 12)...)
	// Start near the end so the last record wraps.
	start := uint64(len(data)) - 40
	for i, b := range stream {
		data[(start+uint64(i))%uint64(len(data))] = b
	}
	page.Data_tail = start
	page.Data_head = start + uint64(len(stream))

	ev := s.Drain(nil)
	ev = s.drainRing(r, ev)
	if len(ev) != 3 {
		t.Fatalf("events %+v", ev)
	}
	if ev[0].Time != 1000 || ev[0].A != 11 || ev[0].TID != 77 || ev[0].CPU != 1 || ev[2].A != 12 {
		t.Fatalf("samples %+v", ev)
	}
	if ev[1].Kind != Lost || ev[1].A != 3 || ev[1].Time != 1000 || ev[1].B != 2000 || s.Lost() != 3 {
		t.Fatalf("lost %+v (count %d)", ev[1], s.Lost())
	}
	if page.Data_tail != page.Data_head {
		t.Fatal("tail not advanced")
	}
	if s.Full() != 0 {
		t.Fatalf("a ring with room read as full")
	}

	// A ring read with less room than a record: full, the kernel dropped
	// what came after its last record and has not said how many yet. A
	// Lost event from that record to the end marks it.
	small := make([]byte, 256)
	r = &ring{cpu: 1, page: &page, data: small, hold: -1}
	full := sample(5000, 13)
	for len(full)+72 <= len(small) {
		full = append(full, sample(5000+int64(len(full)), 13)...)
	}
	copy(small, full)
	page.Data_tail, page.Data_head = 0, uint64(len(full))
	ev = s.drainRing(r, nil)
	last := ev[len(ev)-1]
	if s.Full() != 1 || last.Kind != Lost || last.Time != ev[len(ev)-2].Time || last.B != 1<<63-1 {
		t.Fatalf("full ring: %d full, last event %+v", s.Full(), last)
	}
}

func record(typ uint32, body []byte) []byte {
	b := make([]byte, 8+len(body))
	binary.LittleEndian.PutUint32(b[0:], typ)
	binary.LittleEndian.PutUint16(b[6:], uint16(len(b)))
	copy(b[8:], body)
	return b
}

// Open on this machine, when it can: every required event opens and a
// Disable/Close leaves nothing behind. Skipped where tracing is
// unavailable (not root, no tracefs): CI containers.
func TestOpenClose(t *testing.T) {
	s, err := Open(Options{TIDs: []int{unix.Gettid()}, BytesPerCPU: 1 << 16})
	if IsUnavailable(err) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Enable(); err != nil {
		t.Fatal(err)
	}
	if err := s.Disable(); err != nil {
		t.Fatal(err)
	}
	s.Drain(nil)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}
