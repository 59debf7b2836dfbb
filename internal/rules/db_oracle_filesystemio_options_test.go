package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestOracleFilesystemIO(t *testing.T) {
	const id = "db.oracle-filesystemio-options"
	s := host()
	s.Storage.Mounts = []snapshot.Mount{{Device: "/dev/sdb1", Path: "/u02", FSType: "xfs"}, {Device: "/dev/sda2", Path: "/", FSType: "xfs"}}
	// CDB2: filesystemio_options=none and disk_asynch_io=FALSE, files on /u02 (xfs).
	fs := artFires(t, runArt(t, id, s, artSet(t, "initCDB2.ora"), DBOracle))
	if len(fs) == 2 && fs[0].Setting == "oracle:disk_asynch_io" {
		fs[0], fs[1] = fs[1], fs[0]
	}
	if len(fs) != 2 || fs[0].Setting != "oracle:filesystemio_options" || fs[0].Severity != SevWarning ||
		!strings.Contains(fs[0].Evidence, "initCDB2.ora:6: filesystemio_options = none") || !strings.Contains(fs[0].Evidence, "xfs /u02 on /dev/sdb1") ||
		!strings.Contains(fs[0].Fix.Persistent[0], "filesystemio_options=SETALL SCOPE=SPFILE") ||
		fs[1].Setting != "oracle:disk_asynch_io" || !strings.Contains(fs[1].Evidence, "initCDB2.ora:7") {
		t.Fatalf("%+v", fs)
	}
	// Unset in a complete pfile: the Linux default NONE; storage unknown → info.
	fs = artFires(t, runArt(t, id, s, artSet(t, "initX.ora=*.db_name=X\n*.sga_target=2G\n"), DBOracle))
	if len(fs) != 1 || !strings.HasPrefix(fs[0].Current, "not set (Linux default NONE)") || fs[0].Severity != SevInfo {
		t.Fatalf("%+v", fs)
	}
	// SETALL (CDB1) and ASM (CDB3): no finding.
	artQuiet(t, runArt(t, id, s, artSet(t, "initCDB1.ora", "initCDB3.ora"), DBOracle), "passed")
	// The alert log's last startup lists its non-default parameters: SETALL
	// was set only at the earlier startup, so the last one runs with NONE.
	fs = artFires(t, runArt(t, id, s, artSet(t, "alert_ORCL.log"), DBOracle))
	if !strings.Contains(fs[0].Current, "instance ORCL") {
		t.Fatalf("%+v", fs)
	}
	// An alert log without a parameter list says nothing about the default.
	r := artQuiet(t, runArt(t, id, s, artSet(t, "alert_X.log=Starting ORACLE instance (normal)\nNUMA system with 2 nodes detected\n"), DBOracle), "passed")
	if !strings.Contains(r, "unknown") {
		t.Fatal(r)
	}
	artQuiet(t, runArt(t, id, s, nil, DBOracle), "n/a")
}
