//go:build !parkinject

package inject

// Enabled reports whether slowdown injection is compiled in.
const Enabled = false

// Wake marks a wake path's injection point; a no-op without the
// parkinject tag.
func Wake(Site) {}

// Describe says what is injected: "" without the parkinject tag.
func Describe() string { return "" }
