// Command smokecheck checks a result file from a smoke run holds real
// figures: it decodes and validates (results.ReadFile), every configuration
// of every experiment has its rounds, a positive median, decodable
// histograms, and the experiment carries its claims.
//
//	go run ./scripts/cmd/smokecheck FILE...
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/parkbench/parkbench/internal/results"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: smokecheck FILE...")
		os.Exit(2)
	}
	bad := 0
	for _, path := range os.Args[1:] {
		if err := check(path); err != nil {
			fmt.Fprintf(os.Stderr, "smokecheck: %s: %v\n", path, err)
			bad++
			continue
		}
		fmt.Printf("smokecheck: %s: ok\n", path)
	}
	if bad > 0 {
		os.Exit(1)
	}
}

func check(path string) error {
	f, err := results.ReadFile(path)
	if err != nil {
		return err
	}
	if len(f.Experiments) == 0 {
		return errors.New("no experiments")
	}
	for _, e := range f.Experiments {
		if len(e.Configs) == 0 {
			return fmt.Errorf("%s: no configurations", e.Name)
		}
		if len(e.Claims) == 0 && (e.Name == "latency" || e.Name == "herd") {
			return fmt.Errorf("%s: no claims evaluated", e.Name)
		}
		if e.Runtime.GOMAXPROCS < 1 {
			return fmt.Errorf("%s: runtime settings not recorded", e.Name)
		}
		for _, c := range e.Configs {
			if len(c.Rounds) == 0 {
				return fmt.Errorf("%s %s: no rounds", e.Name, c.Key)
			}
			if e.Name == "latency" && !(c.Summary[results.MMedian] > 0) {
				return fmt.Errorf("%s %s: median %v is not a positive figure", e.Name, c.Key, c.Summary[results.MMedian])
			}
			if c.Probe == nil || !(c.Probe.SyscallNs > 0) {
				return fmt.Errorf("%s %s: no probe recorded", e.Name, c.Key)
			}
			for i := range c.Rounds {
				if _, err := c.Rounds[i].Hist(); err != nil && !errors.Is(err, results.ErrNoHistogram) {
					return fmt.Errorf("%s %s round %d: histogram: %v", e.Name, c.Key, i+1, err)
				}
			}
		}
	}
	return nil
}
