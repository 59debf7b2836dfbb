package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Resource is one thing a bench run created outside its own memory: a
// scratch directory or file, a SysV message queue, a child process, a
// scratch database or table. It is recorded (fsync'ed) before it is created
// so that a run killed with SIGKILL leaves a record the next run (or
// `dbhost bench --cleanup`) acts on. Network namespaces and TUN devices
// are not recorded: dbhost never names or persists them, so the kernel
// removes them with the last file descriptor, when the process dies.
type Resource struct {
	ID   int    `json:"id"`
	Kind string `json:"kind"`
	// What identifies it: a path, a queue id, a pid, a database name.
	Name string `json:"name"`
	// Kind-specific: the queue's creation time, the process's start time,
	// the DSN (without password) that reaches a database.
	Detail string    `json:"detail,omitempty"`
	Added  time.Time `json:"added"`
}

// Resource kinds.
const (
	KindDir      = "dir"      // a directory the run created (removed with its contents)
	KindFile     = "file"     // a file the run created
	KindMsgQueue = "sysv-msq" // a SysV message queue: Name = msqid, Detail = ctime
	KindProcess  = "process"  // a child process: Name = pid, Detail = its start time (clock ticks)
	KindDatabase = "database" // a scratch database: Name = database, Detail = DSN
	KindTable    = "table"    // a scratch table: Name = table, Detail = DSN
)

// cleaners remove a resource of a kind; registered by the files that
// create them. A cleaner returns nil when the resource is gone (also when
// it was gone already) and an error when it is still there.
var cleaners = map[string]func(Resource) error{
	KindDir:     removeRecordedPath,
	KindFile:    removeRecordedPath,
	KindProcess: killRecordedProcess,
}

// RegisterCleaner tells the registry how to remove a resource kind that a
// later stage creates (an experiment's apply journal).
func RegisterCleaner(kind string, f func(Resource) error) { cleaners[kind] = f }

// record is one run's file in the registry directory.
type record struct {
	PID       int        `json:"pid"`
	Start     string     `json:"start"` // process start time, to tell a reused pid
	Command   string     `json:"command"`
	Started   time.Time  `json:"started"`
	Resources []Resource `json:"resources"`
}

// Registry is this run's record of what it created.
type Registry struct {
	mu   sync.Mutex
	dir  string
	path string
	rec  record
	next int
}

// DefaultRegistryDir is where runs record what they create: under dbhost's
// state directory for root, the user's state directory otherwise.
func DefaultRegistryDir() string {
	if os.Geteuid() == 0 {
		return "/var/lib/dbhost/bench"
	}
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "dbhost", "bench")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".local", "state", "dbhost", "bench")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("dbhost-bench-%d", os.Getuid()))
}

// Cleaned is what a cleanup did with one leftover.
type Cleaned struct {
	Run      string   `json:"run"` // the record file
	Resource Resource `json:"resource"`
	Error    string   `json:"error,omitempty"`
}

// OpenRegistry creates this run's record in dir, after removing the
// leftovers of runs that died (their process is gone).
func OpenRegistry(dir, command string) (*Registry, []Cleaned, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, fmt.Errorf("bench registry %s: %w", dir, err)
	}
	cleaned, err := CleanupLeftovers(dir)
	if err != nil {
		return nil, cleaned, err
	}
	r := &Registry{dir: dir, rec: record{PID: os.Getpid(), Start: procStart(os.Getpid()), Command: command, Started: time.Now().UTC()}}
	// One process may hold several records (an experiment and the benches
	// it runs): the time tells them apart.
	r.path = filepath.Join(dir, fmt.Sprintf("run-%d-%s-%d.json", r.rec.PID, sanitize(r.rec.Start), time.Now().UnixNano()))
	r.rec.Resources = []Resource{}
	if err := r.save(); err != nil {
		return nil, cleaned, err
	}
	return r, cleaned, nil
}

func sanitize(s string) string {
	if s == "" {
		return strconv.FormatInt(time.Now().UnixNano(), 10)
	}
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, s)
}

// Add records a resource before it is created; it returns its id.
func (r *Registry) Add(kind, name, detail string) (int, error) {
	if r == nil {
		return 0, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next++
	r.rec.Resources = append(r.rec.Resources, Resource{ID: r.next, Kind: kind, Name: name, Detail: detail, Added: time.Now().UTC()})
	return r.next, r.save()
}

// Update changes a recorded resource's name or detail (a queue id known
// only once it exists, for instance).
func (r *Registry) Update(id int, name, detail string) error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range r.rec.Resources {
		if r.rec.Resources[i].ID == id {
			r.rec.Resources[i].Name, r.rec.Resources[i].Detail = name, detail
		}
	}
	return r.save()
}

// Done forgets a resource the run removed itself.
func (r *Registry) Done(id int) error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.rec.Resources[:0]
	for _, x := range r.rec.Resources {
		if x.ID != id {
			out = append(out, x)
		}
	}
	r.rec.Resources = out
	return r.save()
}

// Close removes what is still recorded (newest first) and the record; a
// resource that could not be removed stays recorded and is returned as an
// error, for the next run or `dbhost bench --cleanup`.
func (r *Registry) Close() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var errs []error
	var kept []Resource
	for i := len(r.rec.Resources) - 1; i >= 0; i-- {
		x := r.rec.Resources[i]
		if err := cleanResource(x); err != nil {
			errs = append(errs, err)
			kept = append([]Resource{x}, kept...)
		}
	}
	r.rec.Resources = kept
	if len(kept) == 0 {
		if err := os.Remove(r.path); err != nil && !os.IsNotExist(err) {
			errs = append(errs, err)
		}
	} else if err := r.save(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Dir is the registry's directory.
func (r *Registry) Dir() string { return r.dir }

func (r *Registry) save() error {
	b, err := json.MarshalIndent(r.rec, "", "  ")
	if err != nil {
		return err
	}
	return writeFileSync(r.path, b)
}

// writeFileSync writes path atomically (temporary file, fsync, rename,
// fsync of the directory).
func writeFileSync(path string, data []byte) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// MaxRecordBytes bounds one record file.
const MaxRecordBytes = 4 << 20

// CleanupLeftovers removes what runs whose process is gone recorded, and
// their record files; a run still alive is left alone. A resource that
// cannot be removed stays recorded, with the error.
func CleanupLeftovers(dir string) ([]Cleaned, error) {
	names, err := filepath.Glob(filepath.Join(dir, "run-*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []Cleaned
	for _, p := range names {
		st, err := os.Stat(p)
		if err != nil || st.Size() > MaxRecordBytes {
			out = append(out, Cleaned{Run: p, Error: fmt.Sprintf("record larger than %d bytes or unreadable: left alone", MaxRecordBytes)})
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var rec record
		if err := json.Unmarshal(b, &rec); err != nil {
			out = append(out, Cleaned{Run: p, Error: fmt.Sprintf("%v: not a dbhost bench record, left alone", err)})
			continue
		}
		if alive(rec.PID, rec.Start) {
			continue
		}
		var kept []Resource
		for i := len(rec.Resources) - 1; i >= 0; i-- {
			x := rec.Resources[i]
			c := Cleaned{Run: filepath.Base(p), Resource: x}
			if err := cleanResource(x); err != nil {
				c.Error = err.Error()
				kept = append([]Resource{x}, kept...)
			}
			out = append(out, c)
		}
		if len(kept) == 0 {
			_ = os.Remove(p)
		} else {
			rec.Resources = kept
			if b, err := json.MarshalIndent(rec, "", "  "); err == nil {
				_ = writeFileSync(p, b)
			}
		}
	}
	return out, nil
}

func cleanResource(x Resource) error {
	f := cleaners[x.Kind]
	if f == nil {
		return fmt.Errorf("%s %s: this dbhost does not know how to remove a %q", x.Kind, x.Name, x.Kind)
	}
	if err := f(x); err != nil {
		return fmt.Errorf("%s %s: %w", x.Kind, x.Name, err)
	}
	return nil
}

// alive: is pid running, and is it the same process (same start time)?
func alive(pid int, start string) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	if start == "" {
		return true
	}
	return procStart(pid) == start
}

// procStart is a process's start time in clock ticks since boot (field 22
// of /proc/PID/stat), "" where /proc does not tell.
func procStart(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	return parseStatStart(string(b))
}

// parseStatStart takes field 22 of a /proc/PID/stat line (the comm in
// parentheses may hold spaces and parentheses: fields count from the last ')').
func parseStatStart(s string) string {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state); field 22 is f[19].
	if len(f) < 20 {
		return ""
	}
	if _, err := strconv.ParseUint(f[19], 10, 64); err != nil {
		return ""
	}
	return f[19]
}

// removeRecordedPath removes a scratch file or directory the run created.
// The path must be absolute and carry dbhost's scratch prefix: a record
// edited to name another path is refused.
func removeRecordedPath(x Resource) error {
	if !filepath.IsAbs(x.Name) || !strings.HasPrefix(filepath.Base(x.Name), ScratchPrefix) {
		return fmt.Errorf("not an absolute path named %s*: refusing to remove it", ScratchPrefix)
	}
	if x.Kind == KindDir {
		return os.RemoveAll(x.Name)
	}
	if err := os.Remove(x.Name); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

// ScratchPrefix starts the name of every scratch file and directory a
// bench creates.
const ScratchPrefix = "dbhost-bench-"

// killRecordedProcess kills a child (SIGKILL) that outlived its run, when
// the pid still belongs to it (same start time).
func killRecordedProcess(x Resource) error {
	pid, err := strconv.Atoi(x.Name)
	if err != nil || pid <= 1 {
		return fmt.Errorf("bad pid %q", x.Name)
	}
	if x.Detail == "" || procStart(pid) != x.Detail {
		return nil // gone, or another process now has the pid
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL) // its process group (dbhost starts children in their own)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	for i := 0; i < 100 && procStart(pid) == x.Detail; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if procStart(pid) == x.Detail {
		if st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil && strings.Contains(string(st), ") Z ") {
			return nil // a zombie: dead, waiting for its parent
		}
		return fmt.Errorf("still running after SIGKILL")
	}
	return nil
}

// ScratchDir creates a scratch directory under parent ("" = the system's
// temporary directory), recorded first.
func (r *Registry) ScratchDir(parent string) (string, int, error) {
	if parent == "" {
		parent = os.TempDir()
	}
	// Record a unique name first, then create exactly that name.
	for i := 0; i < 100; i++ {
		name := filepath.Join(parent, fmt.Sprintf("%s%d-%d", ScratchPrefix, os.Getpid(), time.Now().UnixNano()%1e9+int64(i)))
		abs, err := filepath.Abs(name)
		if err != nil {
			return "", 0, err
		}
		id, err := r.Add(KindDir, abs, "")
		if err != nil {
			return "", 0, err
		}
		if err := os.Mkdir(abs, 0o700); err != nil {
			_ = r.Done(id)
			if os.IsExist(err) {
				continue
			}
			return "", 0, err
		}
		return abs, id, nil
	}
	return "", 0, fmt.Errorf("could not create a scratch directory in %s", parent)
}

// RunCleaner removes one resource as a cleanup would (tests).
func RunCleaner(x Resource) error { return cleanResource(x) }
