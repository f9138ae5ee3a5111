// Command parkbench measures how long it takes to put a thread to sleep and
// wake it up, by every mechanism real synchronisation libraries use.
package main

import (
	"os"
)

func main() {
	os.Exit(execute(os.Args[1:]))
}
