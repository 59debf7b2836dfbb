package rules

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/cpulist"
)

// What each rule's changes may set: the catalog's side of a saved plan.
// A plan.json is a file someone may have edited; apply --plan takes from it
// only what a rule of this catalog could have written (VetChange): the rule
// named must exist and declare the setting (kind, key pattern) and the value
// form, and the risk — whether apply needs --accept-risk — is the one declared
// here, never the file's. A rule that emits a change its declaration does not
// allow fails its own tests (run, in testhelpers_test.go, vets every change a
// rule test sees) and the plan-every-fixture test of cmd/dbhost.

// Emit is one setting a rule's changes may set and the values it may set it to.
type Emit struct {
	Kind change.Kind
	// Key is the setting: a sysctl name, a limits.conf "DOMAIN TYPE ITEM",
	// a boot argument's name, or a /sys path pattern whose elements are
	// literal text, with {N} (a decimal number) and {NAME} (a device or
	// interface name: letters, digits, "_.:@+!-", not "." or "..") inside
	// an element, and "**" for one or more path elements of a cgroup's
	// name (any characters but '/', '*', '?', '[', not "." or "..").
	// A limit's domain is {USER}: a user name, never root or a wildcard.
	Key string
	// Values is the value form; for a boot argument to remove, nil.
	Values *Values
	// Remove: the boot argument is one the rule takes off the command line.
	Remove bool
	// Risk, when not empty, is the source's warning apply quotes when it
	// refuses the change without --accept-risk.
	Risk string
}

// Values is a value form: what it is (for messages) and its test.
type Values struct {
	What string
	ok   func(string) bool
}

// OK reports whether v is of the form.
func (v *Values) OK(s string) bool { return v != nil && v.ok(s) }

func oneOf(vals ...string) *Values {
	return &Values{What: "one of " + strings.Join(quoteAll(vals), ", "), ok: func(s string) bool { return contains(vals, s) }}
}

func quoteAll(vals []string) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = strconv.Quote(v)
	}
	return out
}

// decimal parses a plain non-negative decimal integer (no sign, no blanks,
// no leading zero but "0").
func decimal(s string) (int64, bool) {
	if s == "" || len(s) > 19 || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

func intRange(lo, hi int64) *Values {
	what := fmt.Sprintf("an integer from %d to %d", lo, hi)
	if lo == hi {
		what = fmt.Sprintf("%d", lo)
	}
	return &Values{What: what, ok: func(s string) bool {
		n, ok := decimal(s)
		return ok && n >= lo && n <= hi
	}}
}

// triple is "MIN DEFAULT MAX" (tcp_rmem, udp_mem): three integers up to
// hi, MAX at least lastMin.
func triple(lastMin, hi int64) *Values {
	what := fmt.Sprintf("three integers \"MIN DEFAULT MAX\", MAX from %d to %d", lastMin, hi)
	if lastMin == hi {
		what = fmt.Sprintf("three integers \"MIN DEFAULT %d\"", hi)
	}
	return &Values{What: what, ok: func(s string) bool {
		f := strings.Fields(s)
		if len(f) != 3 || strings.Join(f, " ") != s {
			return false
		}
		for _, x := range f {
			if v, ok := decimal(x); !ok || v > hi {
				return false
			}
		}
		last, _ := decimal(f[2])
		return last >= lastMin
	}}
}

// nodeList is a NUMA node list ("0-1,3") of at most maxNodes nodes.
var nodeList = &Values{What: "a node list (\"0-1,3\")", ok: func(s string) bool {
	if s == "" || strings.ContainsAny(s, " \t") {
		return false
	}
	ids, err := cpulist.Parse(s)
	return err == nil && len(ids) > 0 && ids[len(ids)-1] < 1<<12
}}

var memlockValue = &Values{What: "a number of kB or \"unlimited\"", ok: func(s string) bool {
	if s == "unlimited" {
		return true
	}
	_, ok := decimal(s)
	return ok
}}

// fastOpen is tcp_fastopen with the client and server bits (3) set.
var fastOpen = &Values{What: "an integer with the bits 1 and 2 set (tcp_fastopen)", ok: func(s string) bool {
	n, ok := decimal(s)
	return ok && n <= math.MaxInt32 && n&wantTCPFastOpen == wantTCPFastOpen
}}

// maxPages bounds a hugepage count: 2^32 pages of 2 MiB are 8 PiB.
const maxPages = 1 << 32

// cacheTypeRisk is io.cache-type-write-through's warning on cache_type.
const cacheTypeRisk = "000 WARNING: \"Disabling barrier writes on disk devices with volatile cache can result in data loss or data corruption.\" Only if the array's write cache is non-volatile (battery/flash backed)."

func sysctl(key string, v *Values) Emit { return Emit{Kind: change.Sysctl, Key: key, Values: v} }
func sysfs(key string, v *Values) Emit  { return Emit{Kind: change.Sysfs, Key: key, Values: v} }

// hugepageEmits are the pool settings of the rules that size a hugepage
// pool: vm.nr_hugepages (the default size), a sized pool, a node's pool.
var hugepageEmits = []Emit{
	sysctl("vm.nr_hugepages", intRange(0, maxPages)),
	sysfs("/sys/kernel/mm/hugepages/hugepages-{N}kB/nr_hugepages", intRange(0, maxPages)),
	sysfs("/sys/devices/system/node/node{N}/hugepages/hugepages-{N}kB/nr_hugepages", intRange(0, maxPages)),
}

var (
	swappiness    = sysctl("vm.swappiness", intRange(0, wantSwappiness))
	numaBalancing = sysctl("kernel.numa_balancing", oneOf("0"))
	maxSectors    = sysfs("/sys/block/{NAME}/queue/max_sectors_kb", intRange(1, 1<<22))
)

// emits is the catalog's declaration, by rule id. A rule not listed emits
// no change a plan may hold.
var emits = map[string][]Emit{
	"cgroup.cpuset-mems-not-local": {sysfs("/sys/fs/cgroup/**/cpuset.mems", nodeList)},
	"cpu.deep-cstates-latency": {
		{Kind: change.BootArg, Key: "intel_idle.max_cstate", Values: oneOf("0", "1")},
		{Kind: change.BootArg, Key: "processor.max_cstate", Values: oneOf("0", "1")},
	},
	"cpu.energy-perf-bias":         {sysfs("/sys/devices/system/cpu/cpu{N}/power/energy_perf_bias", oneOf("0"))},
	"cpu.governor-not-performance": {sysfs("/sys/devices/system/cpu/cpu{N}/cpufreq/scaling_governor", oneOf("performance"))},
	"cpu.intel-pstate-min-perf": {
		sysfs(sysIntelPstate+"/min_perf_pct", oneOf("100")),
		sysfs(sysIntelPstate+"/max_perf_pct", oneOf("100")),
	},
	"cpu.sched-tunables": {
		sysctl("kernel.sched_min_granularity_ns", intRange(0, 1e9)),
		sysctl("kernel.sched_wakeup_granularity_ns", intRange(0, 1e9)),
		sysctl("kernel.sched_migration_cost_ns", intRange(0, 1e9)),
	},
	"cpu.smt-off": {
		{Kind: change.BootArg, Key: "nosmt", Remove: true},
		sysfs("/sys/devices/system/cpu/cpu{N}/online", oneOf("1")),
	},
	"cpu.tuned-profile":               {swappiness},
	"db.aio-max-nr":                   {sysctl("fs.aio-max-nr", intRange(1, 1<<40))},
	"db.mysql-large-pages":            hugepageEmits,
	"db.pg-huge-pages-on-short":       hugepageEmits,
	"db.pg-huge-pages-pool":           hugepageEmits,
	"db.postgres-huge-pages":          hugepageEmits,
	"memory.hugepages-pool-oversized": hugepageEmits,
	"memory.hugepages-too-few":        hugepageEmits,
	"io.cache-type-write-through": {
		sysfs("/sys/block/{NAME}/queue/write_cache", oneOf("write back")),
		{Kind: change.Sysfs, Key: "/sys/block/{NAME}/device/scsi_disk/*/cache_type", Values: oneOf("temporary write through"), Risk: cacheTypeRisk},
	},
	"io.max-sectors-large-io":  {maxSectors},
	"io.max-sectors-multipath": {maxSectors},
	"io.nomerges":              {sysfs("/sys/block/{NAME}/queue/nomerges", oneOf("1"))},
	"io.nr-requests":           {sysfs("/sys/block/{NAME}/queue/nr_requests", intRange(wantNrRequests, wantNrRequests))},
	"io.read-ahead":            {sysfs("/sys/block/{NAME}/queue/read_ahead_kb", intRange(wantReadAheadKB, wantReadAheadKB))},
	"io.rotational-flag":       {sysfs("/sys/block/{NAME}/queue/rotational", oneOf("0"))},
	"io.scheduler":             {sysfs("/sys/block/{NAME}/queue/scheduler", oneOf("none", "noop", "deadline", "mq-deadline"))},
	"io.scsi-queue-depth":      {sysfs("/sys/block/{NAME}/device/queue_depth", intRange(1, 1<<16))},
	"memory.dirty-ratios": {
		sysctl("vm.dirty_ratio", intRange(0, 100)),
		sysctl("vm.dirty_background_ratio", intRange(0, 100)),
		sysctl("vm.dirty_bytes", intRange(0, 1<<50)),
		sysctl("vm.dirty_background_bytes", intRange(0, 1<<50)),
	},
	"memory.memlock-below-sga": {
		{Kind: change.Limit, Key: "{USER} soft memlock", Values: memlockValue},
		{Kind: change.Limit, Key: "{USER} hard memlock", Values: memlockValue},
	},
	"memory.swappiness": {swappiness},
	"memory.thp-enabled": {
		sysfs(thpEnabledPath, oneOf("never", "madvise")),
		sysfs("/sys/kernel/mm/redhat_transparent_hugepage/enabled", oneOf("never", "madvise")), // RHEL 6 (THPDir)
		sysfs(thpShmemPath, oneOf("never")),
		{Kind: change.BootArg, Key: "transparent_hugepage", Values: oneOf("never", "madvise")},
	},
	"memory.zone-reclaim":          {sysctl("vm.zone_reclaim_mode", oneOf("0"))},
	"network.arp-filter-multi-nic": {sysctl("net.ipv4.conf.all.arp_filter", oneOf("1"))},
	"network.bond-xmit-hash-policy": {
		sysfs("/sys/class/net/{NAME}/bonding/xmit_hash_policy", oneOf("layer3+4")),
	},
	"network.busy-poll-latency": {
		sysctl("net.core.busy_read", intRange(wantBusyPoll, wantBusyPoll)),
		sysctl("net.core.busy_poll", intRange(wantBusyPoll, wantBusyPoll)),
	},
	"network.jumbo-frames": {{Kind: change.Sysfs, Key: "/sys/class/net/{NAME}/mtu", Values: oneOf("9000"), Risk: jumboRisk}},
	"network.socket-buffers": {
		sysctl("net.core.rmem_max", intRange(wantSockBuf, wantSockBuf)),
		sysctl("net.core.wmem_max", intRange(wantSockBuf, wantSockBuf)),
		sysctl("net.ipv4.tcp_rmem", triple(wantSockBuf, wantSockBuf)),
		sysctl("net.ipv4.tcp_wmem", triple(wantSockBuf, wantSockBuf)),
	},
	"network.somaxconn-listener":   {sysctl("net.core.somaxconn", intRange(1, math.MaxInt32))},
	"network.tcp-fastopen-latency": {sysctl("net.ipv4.tcp_fastopen", fastOpen)},
	"network.udp-mem":              {sysctl("net.ipv4.udp_mem", triple(wantUDPMemMax, 1<<40))},
	"numa.balancing-with-db-shm":   {numaBalancing},
	"numa.disabled-at-boot":        {{Kind: change.BootArg, Key: "numa", Remove: true}},
	"numa.migration-storm":         {numaBalancing},
}

// Emits returns what rule id's changes may set (nil: none).
func Emits(id string) []Emit { return emits[id] }

// TunedProfiles are the base profiles a plan's tuned_profile may name
// (TunedProfileFor's choices).
var TunedProfiles = []string{"throughput-performance", "latency-performance", "virtual-guest", "virtual-host"}

var (
	nameRE = regexp.MustCompile(`^[A-Za-z0-9_.:@+!-]+$`)
	userRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*\$?$`)
)

// element matches one path element (or limits domain) against a pattern
// element with {N} and {NAME} placeholders.
func element(pat, s string) bool {
	if s == "" {
		return pat == ""
	}
	i := strings.IndexByte(pat, '{')
	if i < 0 {
		return pat == s
	}
	j := strings.IndexByte(pat[i:], '}')
	if j < 0 {
		return pat == s
	}
	ph, rest := pat[i+1:i+j], pat[i+j+1:]
	if !strings.HasPrefix(s, pat[:i]) {
		return false
	}
	s = s[i:]
	// The placeholder takes a non-empty run; try every split (names are
	// short and patterns have at most two placeholders).
	for k := len(s); k >= 1; k-- {
		part := s[:k]
		var ok bool
		switch ph {
		case "N":
			_, ok = decimal(part)
		case "NAME":
			ok = part != "." && part != ".." && nameRE.MatchString(part)
		case "USER":
			ok = part != "root" && userRE.MatchString(part)
		}
		if ok && element(rest, s[k:]) {
			return true
		}
	}
	return false
}

// cgroupElement is one element of a cgroup's name ("**").
func cgroupElement(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, "*?[\\")
}

// keyMatch reports whether key is of the pattern (see Emit.Key).
func keyMatch(kind change.Kind, pat, key string) bool {
	switch kind {
	case change.Sysfs:
		return pathMatch(strings.Split(pat, "/"), strings.Split(key, "/"))
	case change.Limit:
		p, k := strings.Split(pat, " "), strings.Split(key, " ")
		if len(p) != len(k) {
			return false
		}
		for i := range p {
			if !element(p[i], k[i]) {
				return false
			}
		}
		return true
	}
	return pat == key
}

func pathMatch(p, k []string) bool {
	for len(p) > 0 {
		if p[0] == "**" {
			// One or more cgroup elements, then the rest.
			for n := 1; n <= len(k); n++ {
				if !cgroupElement(k[n-1]) {
					return false
				}
				if pathMatch(p[1:], k[n:]) {
					return true
				}
			}
			return false
		}
		if len(k) == 0 || !element(p[0], k[0]) {
			return false
		}
		p, k = p[1:], k[1:]
	}
	return len(k) == 0
}

// VetChange checks a change read from a file (a saved plan) against the
// catalog: every rule its Rule names (comma-separated when rules were
// merged) exists and declares the change's kind, key and value form (or,
// for a boot argument to remove, its removal). It returns the catalog's
// risk for the change ("" for none): the risk apply gates on, whatever
// the file's risk field said.
func VetChange(c change.Change) (risk string, err error) {
	if strings.TrimSpace(c.Rule) == "" {
		return "", fmt.Errorf("no rule: every change of a plan names the rule that made it")
	}
	for _, id := range strings.Split(c.Rule, ",") {
		id = strings.TrimSpace(id)
		if _, ok := Lookup(id); !ok {
			return "", fmt.Errorf("rule %q is not in this dbhost's catalog ('dbhost rules list')", id)
		}
		es := emits[id]
		var keyed []Emit
		for _, e := range es {
			if e.Kind == c.Kind && keyMatch(e.Kind, e.Key, c.Key) {
				keyed = append(keyed, e)
			}
		}
		if len(keyed) == 0 {
			if len(es) == 0 {
				return "", fmt.Errorf("rule %s makes no change a plan may hold", id)
			}
			return "", fmt.Errorf("rule %s does not set %s %q (it sets %s)", id, c.Kind, c.Key, emitList(es))
		}
		var matched *Emit
		for i, e := range keyed {
			if c.Kind == change.BootArg && c.Remove {
				if e.Remove {
					matched = &keyed[i]
				}
			} else if !e.Remove && e.Values.OK(c.Value) {
				matched = &keyed[i]
			}
			if matched != nil {
				break
			}
		}
		if matched == nil {
			e := keyed[0]
			switch {
			case c.Kind == change.BootArg && c.Remove:
				return "", fmt.Errorf("rule %s does not remove the boot argument %q", id, c.Key)
			case e.Remove:
				return "", fmt.Errorf("rule %s only removes the boot argument %q", id, c.Key)
			}
			return "", fmt.Errorf("rule %s does not set %s %q to %q: expected %s", id, c.Kind, c.Key, c.Value, e.Values.What)
		}
		if risk == "" {
			risk = matched.Risk
		}
	}
	return risk, nil
}

// emitList names a rule's settings for a message.
func emitList(es []Emit) string {
	var out []string
	for _, e := range es {
		out = append(out, fmt.Sprintf("%s %s", e.Kind, e.Key))
	}
	return strings.Join(out, ", ")
}
