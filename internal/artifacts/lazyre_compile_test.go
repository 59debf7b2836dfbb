package artifacts

import (
	"regexp"
	"testing"
)

// Every pattern compiles (they are compiled lazily, on first use, so an
// invalid one would otherwise only show when that code path runs).
func TestLazyPatternsCompile(t *testing.T) {
	for i, re := range []func() *regexp.Regexp{
		reInitName,
		reInitSID,
		reInitStart,
		rePGName,
		rePGBare,
		reAlertTime,
		reAlertStart,
		reAlertBanner,
		reAlertVersion,
		reAlertSID,
		reAlertParam,
		reAlertMemlock,
		reAlertExpected,
		reAlertPSRow,
		reAlertReason,
		reAlertRecItem,
		reAlertStars,
		reLPTotal,
		reLPUsed,
		reLPUnused,
		reLPConfigured,
		reLPSize,
		reLPSGASize,
		reLPRequired,
		reAlertCount,
		reORA,
		reNUMANodes,
		reNUMASupport,
		reNUMAMap,
		reXMLDatasource,
		reAlert,
		reSrvctl,
		reSrvctl2,
		reCgconfig,
		reNetTree,
		reTNS,
		reListener,
		reOraPrefixed,
		reOraStar,
		reOraParam,
		rePGParam,
	} {
		if re() == nil {
			t.Errorf("pattern %d did not compile", i)
		}
	}
}
