package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dbhost/dbhost/internal/artifacts"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// DetectDB resolves --db auto: the engine of the first live server read
// (--pg, --mysql), else the engine with the most processes in the
// snapshot, else the database the artifacts belong to, else "none". It
// returns the engine and the evidence ("3 oracle processes (ora_pmon_ORCL, ...)").
func DetectDB(s *snapshot.Snapshot, set *artifacts.Set) (db, evidence string) {
	if s != nil {
		// A server the user connected to (--pg, --mysql) names the database first.
		for _, d := range s.Databases {
			if e := engineDB(d.Engine); e != "" {
				if d.Error != "" {
					// Named, not read: the engine is what the user asked
					// for, and the header says the server was not read.
					return e, fmt.Sprintf("live %s server named, NOT read (%s): %s; its rules could not check", d.Engine, d.Connection, d.Error)
				}
				return e, fmt.Sprintf("live %s server read (%s)", d.Engine, d.Connection)
			}
		}
		count := map[string]int{}
		example := map[string]string{}
		note := func(engine, role, name string) {
			e := engineDB(engine)
			if e == "" {
				return
			}
			count[e]++
			if example[e] == "" || mainRole(role) {
				example[e] = name
			}
		}
		for _, p := range s.Processes {
			note(p.Engine, p.Role, p.Comm)
		}
		if s.AIX != nil {
			// An AIX host's processes are its ps -ef (aix.processes).
			for _, p := range s.AIX.Processes {
				name, _, _ := strings.Cut(strings.TrimSpace(p.Cmd), " ")
				note(p.Engine, p.Role, name)
			}
		}
		if len(count) > 0 {
			engines := make([]string, 0, len(count))
			for e := range count {
				engines = append(engines, e)
			}
			// Most processes first; ties by name, so the answer is stable.
			sort.Slice(engines, func(i, j int) bool {
				if count[engines[i]] != count[engines[j]] {
					return count[engines[i]] > count[engines[j]]
				}
				return engines[i] < engines[j]
			})
			e := engines[0]
			ev := fmt.Sprintf("%d %s process(es), e.g. %s", count[e], e, example[e])
			if len(engines) > 1 {
				ev += fmt.Sprintf("; also %s (audit it with --db)", strings.Join(engines[1:], ", "))
			}
			return e, ev
		}
	}
	if set != nil {
		for _, f := range set.Files {
			if e := artifactDB(string(f.Kind)); e != "" {
				return e, fmt.Sprintf("artifact %s is a %s", f.Path, f.Kind)
			}
		}
	}
	return DBNone, "no database process in the snapshot and no database artifact"
}

// engineDB maps Process.Engine to a --db value.
func engineDB(engine string) string {
	switch strings.ToLower(engine) {
	case "oracle":
		return DBOracle
	case "postgres", "postgresql":
		return DBPostgres
	case "mysql", "mariadb":
		return DBMySQL
	}
	return ""
}

// artifactDB maps an artifact kind to the database it belongs to ("" for
// kinds that belong to none: cgconfig.conf, datasource XML).
func artifactDB(kind string) string {
	switch artifacts.Kind(kind) {
	case artifacts.KindAlertLog, artifacts.KindInit, artifacts.KindSpfile, artifacts.KindListener,
		artifacts.KindTNSNames, artifacts.KindSrvctl, artifacts.KindAWR, artifacts.KindStatspack:
		return DBOracle
	case artifacts.KindPGConf:
		return DBPostgres
	}
	return ""
}

// mainRole is the process that names an instance best in evidence.
func mainRole(role string) bool {
	return role == "pmon" || role == "postmaster" || role == "server"
}
