package rules

import (
	"regexp"
	"testing"
)

// Every pattern compiles (they are compiled lazily, on first use, so an
// invalid one would otherwise only show when that code path runs).
func TestLazyPatternsCompile(t *testing.T) {
	for i, re := range []func() *regexp.Regexp{
		reInitFileSID,
		reAlertFileSID,
		reArchLocation,
		rePosixTZ,
		reOlsonTZ,
		reAIXDataName,
		reAIXRedoName,
		reAIXArchName,
	} {
		if re() == nil {
			t.Errorf("pattern %d did not compile", i)
		}
	}
}
