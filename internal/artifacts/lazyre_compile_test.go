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
		reAWRNum, reAWRHTMLTitle, reAWRText, reStatspack, reAWRExcerpt1, reAWRExcerpt2, reAWRCompare, reASHReport,
		reADDMReport, reAWRNote, reAWRDBInst, reAWRLabelLn, reSnapBegin, reSnapEnd, reSnapElapse, reSnapDBTime,
		reLabelValue, reLabelPairs, reHostCPUs, reSPHost, reSPNumCPUs, reSPPhysMem, reHTMLTitle, reSizeCell, reCachePair,
	} {
		if re() == nil {
			t.Errorf("pattern %d did not compile", i)
		}
	}
	for _, x := range awrTitles {
		if x.re() == nil {
			t.Errorf("title pattern of %s did not compile", x.sec)
		}
	}
}
