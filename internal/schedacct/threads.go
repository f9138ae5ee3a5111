package schedacct

// Roles of a process's threads, for the context-switch breakdown.
const (
	RoleParticipant = "participant" // a measured thread (its tid given by the caller)
	RoleSysmon      = "sysmon"      // the runtime's monitor thread
	RoleOther       = "other"       // every other thread: idle or spinning Ms, the netpoller, C threads
)

// Snapshot is every thread's context switches (voluntary + involuntary) at
// one moment, by thread id.
type Snapshot map[int]int64

// Breakdown is the context switches between two snapshots by role. A thread
// that exited in between is left out; one that appeared counts from 0.
type Breakdown struct {
	Participants, Sysmon, Other int64
}

// Since returns the switches from old to s, split by role: participants are
// the given thread ids, sysmon the given one (0: unknown, counted as other).
func (s Snapshot) Since(old Snapshot, participants []int, sysmon int) Breakdown {
	var b Breakdown
	for tid, n := range s {
		d := n - old[tid]
		switch {
		case containsTid(participants, tid):
			b.Participants += d
		case tid == sysmon:
			b.Sysmon += d
		default:
			b.Other += d
		}
	}
	return b
}

func containsTid(list []int, tid int) bool {
	for _, t := range list {
		if t == tid {
			return true
		}
	}
	return false
}
