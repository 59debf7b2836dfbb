// Package artifacts recognises and parses database artifacts a user hands to
// the audit (--artifact PATH): Oracle alert logs, init.ora/pfile/spfile strings,
// listener.ora, tnsnames.ora, cgconfig.conf, postgresql.conf, JBoss/WildFly
// datasource XML and `srvctl config service` output. Recognition is by
// content, not by file name.
package artifacts

// Set is every artifact given to one audit, parsed.
type Set struct {
	Files []File `json:"files"`
}

// File is one recognised artifact.
type File struct {
	Path string `json:"path"`
	Kind string `json:"kind"`
}
