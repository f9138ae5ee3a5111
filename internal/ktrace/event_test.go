package ktrace

import (
	"encoding/binary"
	"testing"
)

// sched_waking's format on Linux 6.18 (tracefs events/sched/sched_waking/format).
const wakingFormat = `name: sched_waking
ID: 375
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;

	field:char comm[16];	offset:8;	size:16;	signed:0;
	field:pid_t pid;	offset:24;	size:4;	signed:1;
	field:int prio;	offset:28;	size:4;	signed:1;
	field:int target_cpu;	offset:32;	size:4;	signed:1;

print fmt: "comm=%s pid=%d prio=%d target_cpu=%03d", REC->comm, REC->pid, REC->prio, REC->target_cpu
`

func TestParseFormat(t *testing.T) {
	f, err := ParseFormat(wakingFormat)
	if err != nil {
		t.Fatal(err)
	}
	if got := f["pid"]; got != (Field{Offset: 24, Size: 4, Signed: true}) {
		t.Fatalf("pid %+v", got)
	}
	if got := f["comm"]; got.Offset != 8 || got.Size != 16 {
		t.Fatalf("comm %+v", got)
	}
	if _, err := ParseFormat("name: x\nformat:\n\tfield:int a;\tsize:4;\n"); err == nil {
		t.Fatal("a field without an offset was accepted")
	}
}

func TestFieldRead(t *testing.T) {
	raw := []byte{0xff, 0xff, 0xff, 0xff, 1, 0, 0, 0}
	if v, _ := (Field{Offset: 0, Size: 4, Signed: true}).Read(raw); v != -1 {
		t.Fatalf("signed: %d", v)
	}
	if v, _ := (Field{Offset: 0, Size: 4}).Read(raw); v != IdleExit {
		t.Fatalf("unsigned: %d, want %d (cpu_idle's exit state)", v, int64(IdleExit))
	}
	if _, ok := (Field{Offset: 6, Size: 4}).Read(raw); ok {
		t.Fatal("read past the record")
	}
}

func TestDecoder(t *testing.T) {
	f, _ := ParseFormat(wakingFormat)
	d, err := NewDecoder(map[Kind]uint16{Waking: 375}, map[Kind]map[string]Field{Waking: f})
	if err != nil {
		t.Fatal(err)
	}
	raw := make([]byte, 36)
	binary.LittleEndian.PutUint16(raw[0:], 375)
	binary.LittleEndian.PutUint32(raw[24:], 4321)
	binary.LittleEndian.PutUint32(raw[32:], 1)
	var e Event
	if !d.Decode(raw, &e) || e.Kind != Waking || e.A != 4321 || e.B != 1 {
		t.Fatalf("decoded %+v", e)
	}
	binary.LittleEndian.PutUint16(raw[0:], 999)
	if d.Decode(raw, &e) {
		t.Fatal("decoded an unknown event id")
	}
	if d.Decode(raw[:30], &e) {
		t.Fatal("decoded a short record")
	}
	if _, err := NewDecoder(map[Kind]uint16{Switch: 1}, map[Kind]map[string]Field{Switch: f}); err == nil {
		t.Fatal("a format without the event's fields was accepted")
	}
}
