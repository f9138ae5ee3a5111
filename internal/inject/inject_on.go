//go:build parkinject

package inject

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// Enabled reports whether slowdown injection is compiled in.
const Enabled = true

// delay is each site's busy wait, read once from PARKBENCH_INJECT.
var delay [numSites]time.Duration

// parseErr is why PARKBENCH_INJECT was refused (Describe reports it; the
// delays stay 0).
var parseErr error

func init() { delay, parseErr = parse(os.Getenv("PARKBENCH_INJECT")) }

// parse reads "site=duration[,site=duration...]" (durations as
// time.ParseDuration, "0" allowed).
func parse(s string) (d [numSites]time.Duration, err error) {
	for _, kv := range strings.Split(s, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		name, val, ok := strings.Cut(kv, "=")
		if !ok {
			return d, fmt.Errorf("PARKBENCH_INJECT %q: want site=duration, sites %s", kv, strings.Join(siteNames[:], ", "))
		}
		site := -1
		for i, n := range siteNames {
			if n == strings.TrimSpace(name) {
				site = i
			}
		}
		if site < 0 {
			return d, fmt.Errorf("PARKBENCH_INJECT: unknown site %q, want one of %s", name, strings.Join(siteNames[:], ", "))
		}
		v, err := time.ParseDuration(strings.TrimSpace(val))
		if err != nil || v < 0 || v > time.Second {
			return d, fmt.Errorf("PARKBENCH_INJECT: %s=%s: want a duration from 0 to 1s", name, val)
		}
		d[site] = v
	}
	return d, nil
}

// Wake busy-waits for the site's delay: a spin on the monotonic clock, so
// the thread stays on its CPU as a longer wake path would.
func Wake(s Site) {
	d := delay[s]
	if d <= 0 {
		return
	}
	start := time.Now()
	for time.Since(start) < d {
	}
}

// Describe says what is injected, for the result's warnings.
func Describe() string {
	if parseErr != nil {
		return "parkinject build: " + parseErr.Error() + "; nothing injected"
	}
	var parts []string
	for i, d := range delay {
		parts = append(parts, fmt.Sprintf("%s=%v", siteNames[i], d))
	}
	return "parkinject build: a busy wait on the wake path (" + strings.Join(parts, ", ") + "): figures are slowed on purpose"
}
