package cli

import (
	"embed"
	"fmt"
	"strings"
)

// The texts of the experiments' commands are prose, kept as text beside
// the commands: help/<command>.txt is the one-line summary, a blank line,
// the long help, a blank line, "Examples:" and the examples, as --help
// shows them.
//
//go:embed help/*.txt
var helpFiles embed.FS

// texts are a command's help texts.
type texts struct{ short, long, example string }

// examplesHeading separates the long help from the examples.
const examplesHeading = "\n\nExamples:\n"

// commandTexts reads help/<use>.txt. A missing or malformed file is a
// build mistake (TestCommandTexts reads every one), not bad input.
func commandTexts(use string) texts {
	data, err := helpFiles.ReadFile("help/" + use + ".txt")
	if err != nil {
		panic(fmt.Sprintf("cli: the texts of %q: %v", use, err))
	}
	short, rest, ok1 := strings.Cut(string(data), "\n\n")
	long, example, ok2 := strings.Cut(rest, examplesHeading)
	if !ok1 || !ok2 || strings.Contains(short, "\n") {
		panic(fmt.Sprintf("cli: help/%s.txt: want a summary line, a blank line, the long help, then %q and the examples", use, strings.TrimSpace(examplesHeading)))
	}
	return texts{short, long, strings.TrimSuffix(example, "\n")}
}
