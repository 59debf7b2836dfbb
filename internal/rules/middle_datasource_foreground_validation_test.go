package rules

import (
	"strings"
	"testing"
)

func TestDatasourceForegroundValidation(t *testing.T) {
	const id = "middle.datasource-foreground-validation"
	// validate-on-match true (the disabled datasource is skipped).
	fs := artFires(t, runArt(t, id, host(), artSet(t, "standalone-fg.xml"), DBNone))
	f := fs[0]
	if len(fs) != 1 || f.Area != AreaMiddle || f.Setting != "datasource:java:/OracleDS validation" ||
		!strings.HasPrefix(f.Evidence, "standalone-fg.xml:6:") || !strings.Contains(f.Why, "17.867") ||
		!strings.Contains(f.Fix.Persistent[0], "<background-validation>true</background-validation>") ||
		!strings.Contains(f.Fix.Persistent[0], "oracle.OracleValidConnectionChecker") {
		t.Fatalf("%+v", f)
	}
	// JBoss AS 5 form with a check and an interval but no <background-validation>true: validates on match.
	fs = artFires(t, runArt(t, id, host(), artSet(t, "legacy-oracle-ds.xml"), DBOracle))
	if !strings.Contains(fs[0].Current, "JBoss AS 5") || !strings.Contains(fs[0].Current, "background-validation-minutes") ||
		!strings.Contains(fs[0].Fix.Persistent[0], "<background-validation>true</background-validation>") {
		t.Fatalf("%+v", fs[0])
	}
	// Background validation: passes.
	artQuiet(t, runArt(t, id, host(), artSet(t, "oracle-ds.xml"), DBOracle), "passed")
	artQuiet(t, runArt(t, id, host(), nil, DBOracle), "n/a")
}
