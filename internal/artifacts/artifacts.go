// Package artifacts recognises and parses database artifacts a user hands to
// the audit (--artifact PATH): Oracle alert logs, init.ora/pfile/spfile strings,
// listener.ora, tnsnames.ora, cgconfig.conf, postgresql.conf, JBoss/WildFly
// datasource XML, `srvctl config service` output, AWR/Statspack reports and
// libvirt domain definitions (KVM guests).
// Recognition is by content, not by file name.
//
// Every parser is a pure function over the file's bytes (ParseAlertLog,
// ParseInit, ParseNet, ParsePGConf, ParseDatasources, ParseSrvctl, ParseAWR). Each
// returns what it could understand plus a list of *Error naming the line it
// could not; it never panics on garbage. Load reads files, recognises them
// and keeps going when one of them is malformed.
package artifacts

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/dbhost/dbhost/internal/lazyre"
	"io"
	"os"

	"github.com/dbhost/dbhost/internal/input"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// Kind names what an artifact is. The empty Kind means "not recognised".
type Kind string

// The recognised kinds (the strings are part of the JSON contract).
const (
	KindAlertLog   Kind = "oracle-alert-log"
	KindInit       Kind = "oracle-init"   // init.ora / pfile
	KindSpfile     Kind = "oracle-spfile" // a binary spfile or `strings spfileSID.ora`
	KindListener   Kind = "listener-ora"
	KindTNSNames   Kind = "tnsnames-ora"
	KindCgconfig   Kind = "cgconfig"
	KindPGConf     Kind = "postgresql-conf"
	KindDatasource Kind = "datasource-xml"
	KindSrvctl     Kind = "srvctl-service" // `srvctl config service -d DB` output
	KindDomain     Kind = "libvirt-domain" // a KVM guest definition: virsh dumpxml, /etc/libvirt/qemu/NAME.xml
)

// Set is every artifact given to one audit, parsed. Each typed list holds one
// element per file of that kind, in the order the files were given.
type Set struct {
	Files []File `json:"files"`

	AlertLogs   []*AlertLog      `json:"alert_logs,omitempty"`
	Params      []*InitParams    `json:"params,omitempty"`    // init.ora, pfile and spfile
	Listeners   []*NetConfig     `json:"listeners,omitempty"` // listener.ora
	TNSNames    []*NetConfig     `json:"tnsnames,omitempty"`  // tnsnames.ora
	Cgconfigs   []*Cgconfig      `json:"cgconfigs,omitempty"`
	PGConfs     []*PGConf        `json:"pg_confs,omitempty"`
	Datasources []*Datasource    `json:"datasources,omitempty"` // every datasource of every XML file
	Services    []*SrvctlService `json:"services,omitempty"`    // every service of every srvctl output
	AWR         []*AWRReport     `json:"awr_reports,omitempty"` // AWR and Statspack reports
	// Domains are libvirt guest definitions (File is the artifact's path).
	Domains []*snapshot.Domain `json:"domains,omitempty"`
}

// File is one artifact as given, with what it was recognised as. Kind is ""
// when it was not recognised (Load then also returns an *Error).
type File struct {
	Path string `json:"path"`
	Kind Kind   `json:"kind"`
	// Note says when only part of a very large file was read.
	Note string `json:"note,omitempty"`
}

// Cgconfig is one cgconfig.conf (libcgroup) file.
type Cgconfig struct {
	File    string                   `json:"file"`
	Entries []snapshot.CgconfigEntry `json:"entries"`
}

// Error is a problem with one artifact: "initORCL.ora:12: expected name = value, got ...".
// Line is 1-based, 0 when the problem is not about one line (unreadable file,
// unknown kind).
type Error struct {
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
	Msg  string `json:"msg"`
}

func (e *Error) Error() string {
	switch {
	case e.File != "" && e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	case e.File != "":
		return e.File + ": " + e.Msg
	case e.Line > 0:
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

func errAt(line int, format string, a ...any) *Error {
	return &Error{Line: line, Msg: fmt.Sprintf(format, a...)}
}

// maxErrors bounds the errors kept per file: a binary file must not produce
// a million of them.
const maxErrors = 20

// errList collects parse errors up to maxErrors, then counts the rest.
type errList struct {
	errs    []error
	dropped int
}

func (l *errList) add(e *Error) {
	if len(l.errs) < maxErrors {
		l.errs = append(l.errs, e)
		return
	}
	l.dropped++
}

func (l *errList) list() []error {
	if l.dropped > 0 {
		return append(l.errs, &Error{Msg: fmt.Sprintf("%d more errors not shown", l.dropped)})
	}
	return l.errs
}

// maxFileSize bounds what Load reads of one artifact. Of a larger alert log
// it reads the end (the most recent startups), of anything else the start.
var maxFileSize int64 = 64 << 20 // a variable for tests

// Load reads, recognises (by content) and parses each file. It keeps going
// after an unreadable, unrecognised or malformed file: everything it could
// parse is in the Set and every problem is one *Error in the list.
func Load(paths []string) (*Set, []error) {
	s := &Set{}
	var errs []error
	for _, p := range paths {
		r, err := readArtifact(p)
		if err != nil {
			s.Files = append(s.Files, File{Path: p})
			errs = append(errs, &Error{File: p, Msg: readReason(err)})
			continue
		}
		errs = append(errs, s.add(p, r.b, true, r.kind, r.lineOffset)...)
		s.Files[len(s.Files)-1].Note = r.note
	}
	return s, errs
}

// Add recognises and parses one artifact's content (as Load does for a file,
// but without following includes) and adds it to the Set.
func (s *Set) Add(path string, b []byte) []error {
	return s.add(path, toUTF8(b), false, "", 0)
}

// add parses b as kind (recognised when ""). lineOffset is the number of
// lines before b in the file (when only the end of a big file was read).
func (s *Set) add(path string, b []byte, fromDisk bool, kind Kind, lineOffset int) []error {
	k := kind
	if k == "" {
		k = Recognize(b)
	}
	s.Files = append(s.Files, File{Path: path, Kind: k})
	var errs []error
	switch k {
	case KindAlertLog:
		a, e := ParseAlertLog(b)
		a.File = path
		if lineOffset > 0 {
			a.shiftLines(lineOffset)
			for _, x := range e {
				if pe, ok := x.(*Error); ok && pe.Line > 0 {
					pe.Line += lineOffset
				}
			}
		}
		s.AlertLogs = append(s.AlertLogs, a)
		errs = e
	case KindInit, KindSpfile:
		p, e := ParseInit(b)
		p.File = path
		s.Params = append(s.Params, p)
		errs = e
	case KindListener, KindTNSNames:
		n, e := ParseNet(b)
		n.File = path
		n.Kind = k
		if k == KindListener {
			s.Listeners = append(s.Listeners, n)
		} else {
			s.TNSNames = append(s.TNSNames, n)
		}
		errs = e
	case KindCgconfig:
		c, e := ParseCgconfig(b)
		c.File = path
		for i := range c.Entries {
			c.Entries[i].File = path
		}
		s.Cgconfigs = append(s.Cgconfigs, c)
		errs = e
	case KindPGConf:
		var c *PGConf
		if fromDisk {
			c, errs = loadPGConf(path, b)
		} else {
			c, errs = ParsePGConf(b)
			c.File = path
			for i := range c.Entries {
				c.Entries[i].File = path
			}
		}
		s.PGConfs = append(s.PGConfs, c)
	case KindDatasource:
		ds, e := ParseDatasources(b)
		for _, d := range ds {
			d.File = path
		}
		s.Datasources = append(s.Datasources, ds...)
		errs = e
	case KindSrvctl:
		sv, e := ParseSrvctl(b)
		for _, v := range sv {
			v.File = path
		}
		s.Services = append(s.Services, sv...)
		errs = e
	case KindDomain:
		d, e := ParseDomain(b)
		if d != nil {
			d.File = path
			s.Domains = append(s.Domains, d)
		}
		errs = e
	case KindAWR, KindStatspack:
		r, e := ParseAWR(b)
		r.File = path
		s.AWR = append(s.AWR, r)
		errs = e
	default:
		return []error{&Error{File: path, Msg: "not a recognised artifact (expected an Oracle alert log, init.ora/pfile, " +
			"spfile strings, listener.ora, tnsnames.ora, cgconfig.conf, postgresql.conf, datasource XML, " +
			"`srvctl config service` output, an AWR or Statspack report, or a libvirt domain XML)"}}
	}
	for _, e := range errs {
		var pe *Error
		if errors.As(e, &pe) && pe.File == "" {
			pe.File = path
		}
	}
	return errs
}

func readLimited(p string) ([]byte, error) {
	f, _, err := input.Open(p, "an artifact")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxFileSize))
}

type artifactRead struct {
	b          []byte
	kind       Kind // forced kind ("" = recognise b)
	lineOffset int
	note       string
}

// readArtifact reads a file whole, or of a file over maxFileSize the last
// maxFileSize bytes when it is an alert log (line numbers kept right by
// counting the lines skipped), else the first maxFileSize bytes. What it
// returns is UTF-8: a file in UTF-16 is decoded (textenc.go), the limit
// being on the bytes read.
func readArtifact(p string) (artifactRead, error) {
	// A FIFO is opened without waiting for a writer; a device is refused.
	f, st, err := input.Open(p, "an artifact")
	if err != nil {
		return artifactRead{}, err
	}
	defer f.Close()
	size := st.Size()
	if size <= maxFileSize || !st.Mode().IsRegular() {
		b, err := io.ReadAll(io.LimitReader(f, maxFileSize))
		r := artifactRead{b: toUTF8(b)}
		if !st.Mode().IsRegular() && int64(len(b)) == maxFileSize {
			r.note = fmt.Sprintf("a pipe: only its first %d MiB were read", maxFileSize>>20)
		}
		return r, err
	}
	head := make([]byte, sniffLen)
	n, err := f.ReadAt(head, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return artifactRead{}, err
	}
	head = head[:n]
	enc := textEncoding(head)
	head = decodeAs(head, enc)
	// A performance report is read whole or not at all: its end holds
	// the parameters and statistics the diagnoses need.
	if k, _ := awrKind(head[:min(len(head), 4096)]); k != "" {
		return artifactRead{}, tooBig(size)
	}
	tailStart := size - maxFileSize
	if enc.utf16 && tailStart%2 == 1 {
		tailStart++ // at a code unit's boundary (the mark is 2 bytes)
	}
	raw := make([]byte, maxFileSize)
	n, err = f.ReadAt(raw[:size-tailStart], tailStart)
	if err != nil && !errors.Is(err, io.EOF) {
		return artifactRead{}, err
	}
	raw = raw[:n]
	tail := decodeAs(raw, encoding{utf16: enc.utf16, bigEndian: enc.bigEndian})
	if Recognize(head) != KindAlertLog && Recognize(tail) != KindAlertLog {
		n, err = f.ReadAt(raw[:cap(raw)], 0)
		if err != nil && !errors.Is(err, io.EOF) {
			return artifactRead{}, err
		}
		return artifactRead{b: decodeAs(raw[:n], enc), note: fmt.Sprintf("%d MiB: only the first %d MiB were read", size>>20, maxFileSize>>20)}, nil
	}
	// Start the tail at a line boundary and count the lines before it.
	cut := bytes.IndexByte(tail, '\n') + 1
	lines, err := countLines(f, tailStart, enc)
	if err != nil {
		return artifactRead{}, err
	}
	if cut > 0 {
		lines++
	}
	tail = tail[cut:]
	return artifactRead{b: tail, kind: KindAlertLog, lineOffset: lines,
		note: fmt.Sprintf("%d MiB: only the last %d MiB (from line %d, the most recent startups) were read", size>>20, maxFileSize>>20, lines+1)}, nil
}

// countLines counts the newlines in the first n bytes of f, text in enc.
func countLines(f *os.File, n int64, enc encoding) (int, error) {
	buf := make([]byte, 1<<20) // even: UTF-16 code units are not split
	lines := 0
	for off := int64(0); off < n; {
		k := int64(len(buf))
		if n-off < k {
			k = n - off
		}
		m, err := f.ReadAt(buf[:k], off)
		lines += enc.newlines(buf[:m])
		off += int64(m)
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return 0, err
		}
	}
	return lines, nil
}

// errTooBig is a file over the size an artifact may have.
type errTooBig struct{ size int64 }

func (e errTooBig) Error() string {
	return fmt.Sprintf("%s is more than the %s limit for an artifact", sizeText(e.size), sizeText(maxFileSize))
}

// sizeText names a file size: "70 MiB", "12 KiB", "900 bytes".
func sizeText(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

func tooBig(size int64) error { return errTooBig{size} }

func readReason(err error) string {
	var ie *input.Error
	if errors.As(err, &ie) {
		return "cannot read: " + ie.Msg
	}
	var big errTooBig
	if errors.As(err, &big) {
		return "cannot read: " + big.Error()
	}
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "cannot read: no such file"
	case errors.Is(err, os.ErrPermission):
		return "cannot read: permission denied"
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return "cannot read: " + pe.Err.Error()
	}
	return "cannot read: " + err.Error()
}

// sniffLen bounds how much of a file Recognize looks at.
const sniffLen = 1 << 20

var (
	reDomainXML     = lazyre.New(`^\x{feff}?\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--(?s:.*?)-->\s*)*<(?:domain|domstatus)[\s>]`)
	reXMLDatasource = lazyre.New(`<(?:[\w-]+:)?(?:datasources|datasource|xa-datasource|local-tx-datasource|no-tx-datasource)[\s>/]`)
	reAlert         = lazyre.New(`(?m)Starting ORACLE instance|Dump of system resources acquired for SHARED GLOBAL AREA|System parameters with non-default values|^\s*Large Pages Information|NUMA system with \d+ nodes detected|Oracle NUMA support (?:not )?enabled|^\s*Total Shared Global Region in Large Pages|Thread \d+ advanced to log sequence|Completed: ALTER DATABASE|Shutting down instance|Warning: lio_listio returned EAGAIN`)
	reSrvctl        = lazyre.New(`(?m)^\s*Service name:\s*\S`)
	reSrvctl2       = lazyre.New(`(?m)^\s*(?:Preferred instances|Available instances|Server pool|Cardinality|Management policy):`)
	reCgconfig      = lazyre.New(`(?m)^\s*(?:group\s+[^\s{]+\s*\{|mount\s*\{|template\s+[^\s{]+\s*\{)`)
	reNetTree       = lazyre.New(`(?i)\(\s*(?:DESCRIPTION|DESCRIPTION_LIST|ADDRESS|ADDRESS_LIST|SID_LIST|SID_DESC)\s*=`)
	reTNS           = lazyre.New(`(?i)\(\s*CONNECT_DATA\s*=`)
	reListener      = lazyre.New(`(?im)^\s*(?:SID_LIST_\w+|ADR_BASE_\w+|CONNECTION_RATE_\w+|INBOUND_CONNECT_TIMEOUT_\w+|VALID_NODE_CHECKING_REGISTRATION_\w+|SECURE_REGISTER_\w+|STARTUP_WAIT_TIME_\w+|LOGGING_\w+|TRACE_LEVEL_\w+|ENABLE_GLOBAL_DYNAMIC_ENDPOINT_\w+|USE_SID_AS_SERVICE_\w+|\w*LISTENER\w*)\s*=|\(\s*(?:RATE_LIMIT|SID_LIST|SID_DESC|GLOBAL_DBNAME|QUEUESIZE)\s*=`)
	reOraPrefixed   = lazyre.New(`(?m)^\s*(?:\*|[A-Za-z][\w$#+-]*)\.(?:"?[A-Za-z_][\w$#]*"?)\s*=`)
	reOraStar       = lazyre.New(`(?m)^\s*\*\.`)
	reOraParam      = lazyre.New(`(?im)^\s*(?:db_name|db_block_size|sga_target|sga_max_size|memory_target|memory_max_target|pga_aggregate_target|control_files|compatible|processes|undo_tablespace|undo_management|audit_file_dest|diagnostic_dest|db_recovery_file_dest|remote_login_passwordfile|use_large_pages|cpu_count|processor_group_name|filesystemio_options|disk_asynch_io|db_cache_size|shared_pool_size|instance_number|cluster_database|open_cursors|log_archive_dest_\d+|_enable_numa_support)\s*=`)
	rePGParam       = lazyre.New(`(?im)^\s*(?:shared_buffers|max_connections|listen_addresses|work_mem|maintenance_work_mem|effective_cache_size|huge_pages|huge_page_size|wal_level|wal_buffers|max_wal_size|min_wal_size|checkpoint_completion_target|datestyle|timezone|log_timezone|lc_messages|lc_monetary|lc_numeric|lc_time|default_text_search_config|dynamic_shared_memory_type|data_directory|hba_file|ident_file|unix_socket_directories|ssl|random_page_cost|effective_io_concurrency|autovacuum\w*|log_line_prefix|log_destination|logging_collector|synchronous_commit|fsync|full_page_writes|include_dir|include_if_exists|port|max_worker_processes|max_parallel_workers\w*|shared_preload_libraries|cluster_name)\s*(?:=|\s+['\w-])`)
)

// Recognize says what an artifact is from its content, or "" when it is none
// of the known kinds. Only the first MiB is examined (and the last MiB for an
// alert log).
func Recognize(b []byte) Kind {
	if len(b) > sniffLen {
		if k := recognize(b[:sniffLen]); k != "" {
			return k
		}
		// A long alert log may start with months of log switches.
		if k := recognize(b[len(b)-sniffLen:]); k == KindAlertLog {
			return k
		}
		return ""
	}
	return recognize(b)
}

func recognize(b []byte) Kind {
	if len(bytes.TrimSpace(b)) == 0 {
		return ""
	}
	// Performance reports first: their init.ora section lists parameters.
	switch kind, _ := awrKind(b); kind {
	case "awr":
		return KindAWR
	case "statspack":
		return KindStatspack
	}
	trimmed := bytes.TrimSpace(b)
	switch {
	case reDomainXML().Match(b):
		return KindDomain
	case (bytes.HasPrefix(trimmed, []byte("<")) || bytes.HasPrefix(trimmed, []byte("\xef\xbb\xbf<"))) && reXMLDatasource().Match(b):
		return KindDatasource
	case reAlert().Match(b):
		return KindAlertLog
	case reSrvctl().Match(b) && reSrvctl2().Match(b):
		return KindSrvctl
	case reTNS().Match(b) && reNetTree().Match(b):
		// CONNECT_DATA is only in connect descriptors (tnsnames.ora).
		return KindTNSNames
	case (reNetTree().Match(b) || reListener().Match(b)) && !reOraParam().Match(b) && !reOraStar().Match(b) && !rePGParam().Match(b):
		// An init.ora may hold an ADDRESS list (local_listener): the Oracle
		// parameter lines above rule that out.
		return KindListener
	}
	if reCgconfig().Match(b) {
		return KindCgconfig
	}
	ora := len(reOraPrefixed().FindAllIndex(b, 50)) + len(reOraParam().FindAllIndex(b, 50))
	pg := len(rePGParam().FindAllIndex(b, 50))
	switch {
	case ora == 0 && pg == 0:
		return ""
	case ora >= pg:
		if looksLikeSpfile(b) {
			return KindSpfile
		}
		return KindInit
	default:
		return KindPGConf
	}
}

// looksLikeSpfile: binary bytes (a real spfile) or a `strings` dump, i.e.
// prefixed parameter lines mixed with junk lines: no '=', and either no blank
// inside or bytes that are not printable ASCII. A file with '#' comment lines
// was written by a person: a pfile.
func looksLikeSpfile(b []byte) bool {
	if bytes.IndexByte(b, 0) >= 0 {
		return true
	}
	junk, prefixed := 0, 0
	for _, ln := range bytes.Split(b, []byte("\n")) {
		t := bytes.TrimSpace(ln)
		switch {
		case len(t) == 0:
		case t[0] == '#':
			return false
		case bytes.IndexByte(t, '=') < 0:
			if isJunk(t) {
				junk++
			}
		case reOraPrefixed().Match(t):
			prefixed++
		}
	}
	return junk > 0 && prefixed >= 2
}

func isJunk(t []byte) bool {
	for _, c := range t {
		if c < 0x20 || c >= 0x7f {
			return true
		}
	}
	if t[0] == '\'' || t[0] == '"' || t[0] == '(' || t[0] == ')' || t[len(t)-1] == ',' {
		return false // a continued value
	}
	return !bytes.ContainsAny(t, " \t")
}
