package place

import (
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/outdir"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// Artifacts renders the files that put a feasible plan in place, keyed by
// their path relative to the output directory. cgroupVersion is the host's
// (v1, v2, hybrid, none, "" unknown): both forms are written, the README
// says which one applies. view heads the README: the placement as dbhost
// place prints it (report.PlaceText; place computes, report draws).
func (r *Result) Artifacts(cgroupVersion string, view []byte) map[string]string {
	files := map[string]string{}
	if !r.Feasible {
		return files
	}
	files["README.txt"] = readme(cgroupVersion, view)
	if len(r.Groups) > 0 {
		files["cgconfig.conf"] = r.cgconfig()
		for _, g := range r.Groups {
			files["systemd/"+g.Name+".slice"] = fmt.Sprintf("# dbhost place: cpuset for %s (cgroup v2)\n[Unit]\nDescription=dbhost placement %s\n\n[Slice]\nAllowedCPUs=%s\nAllowedMemoryNodes=%s\n",
				strings.Join(g.Members, ", "), g.Name, cpulist.Format(g.CPUs), cpulist.Format(g.Mems))
		}
	}
	if hp := r.hugepages(); hp != "" {
		files["hugepages.sh"] = hp
		files["systemd/dbhost-hugepages.service"] = r.hugepagesUnit()
	}
	var numactl strings.Builder
	for _, ip := range r.Instances {
		switch ip.Engine {
		case EngineKVMGuest:
			r.guestArtifacts(ip, files)
		case "oracle":
			files["oracle/"+ip.Name+".ora"] = r.oracleParams(ip)
		default:
			files["systemd/"+ip.Name+".service.d/50-dbhost-place.conf"] = r.serviceDropIn(ip)
			fmt.Fprintf(&numactl, "# %s (%s)\n%s -- <the command that starts %s>\n", ip.Name, ip.Engine, r.numactl(ip), ip.Name)
		}
	}
	if numactl.Len() > 0 {
		files["numactl.txt"] = "# dbhost place: start lines for services not run by systemd\n" + numactl.String()
	}
	if lo, tns := r.listeners(); lo != "" {
		files["oracle/listener.ora"] = lo
		files["oracle/tnsnames.ora"] = tns
	}
	return files
}

// WriteArtifacts writes Artifacts into dir the way every dbhost directory
// output is written (internal/outdir): only dbhost's own files, listed in a
// manifest; a directory holding anything else is refused
// (*outdir.RefusedError, naming the file); a previous placement is
// replaced atomically. It returns the paths written, sorted.
func (r *Result) WriteArtifacts(dir, cgroupVersion string, view []byte) ([]string, error) {
	out := outdir.Spec{Command: "dbhost place", Files: map[string]outdir.File{}, Legacy: legacyPlaceFile}
	for n, c := range r.Artifacts(cgroupVersion, view) {
		mode := fs.FileMode(0o644)
		if strings.HasSuffix(n, ".sh") {
			mode = 0o755
		}
		out.Files[n] = outdir.File{Data: []byte(c), Mode: mode}
	}
	return outdir.Write(dir, out)
}

// legacyPlaceFile recognizes an artifact written before manifests: each
// says "# dbhost place" in its first three lines.
func legacyPlaceFile(_ string, b []byte) bool {
	lines := strings.SplitN(string(b), "\n", 4)
	return strings.Contains(strings.Join(lines[:min(len(lines), 3)], "\n"), "# dbhost place")
}

func owner(engine string) (uid, gid string) {
	switch engine {
	case "oracle":
		return "oracle", "oinstall"
	case "postgres":
		return "postgres", "postgres"
	case "mysql":
		return "mysql", "mysql"
	}
	return "root", "root"
}

func (r *Result) engineOf(name string) string {
	for _, ip := range r.Instances {
		if ip.Name == name {
			return ip.Engine
		}
	}
	return "other"
}

func (r *Result) cgconfig() string {
	var b strings.Builder
	b.WriteString("# dbhost place: cpusets for cgroup v1 (libcgroup's cgconfig service; 001).\n")
	b.WriteString("# Oracle instances join their group with processor_group_name (restart needed).\n")
	for _, g := range r.Groups {
		uid, gid := owner(r.engineOf(g.Members[0]))
		fmt.Fprintf(&b, "\n# %s\ngroup %s {\n    perm {\n        task {\n            uid = %s;\n            gid = %s;\n        }\n        admin {\n            uid = %s;\n            gid = %s;\n        }\n    }\n    cpuset {\n        cpuset.mems = \"%s\";\n        cpuset.cpus = \"%s\";\n    }\n}\n",
			strings.Join(g.Members, ", "), g.Name, uid, gid, uid, gid, cpulist.Format(g.Mems), cpulist.Format(g.CPUs))
	}
	return b.String()
}

// hugepages writes the per-node pool sizes the plan needs.
func (r *Result) hugepages() string {
	t := r.topo
	planned := r.plannedPages()
	if len(planned) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/sh\n# dbhost place: per-node hugepage pools of %d kB for the plan.\n", t.sizeKB)
	b.WriteString("# Growing a pool on a running host may fall short (fragmentation): run early at boot and check the value read back.\nset -e\n")
	for _, n := range t.nodes {
		p := planned[n.id]
		if p == 0 {
			continue
		}
		want := n.total + max(0, p-n.pool)
		path := fmt.Sprintf("/sys/devices/system/node/node%d/hugepages/hugepages-%dkB/nr_hugepages", n.id, t.sizeKB)
		fmt.Fprintf(&b, "# node %d: %d pages planned; pool %d with %d free\n", n.id, p, n.total, n.pool)
		if want == n.total {
			fmt.Fprintf(&b, "# (pool already large enough)\n")
		}
		b.WriteString(change.Echo(fmt.Sprint(want), path) + "\n")
	}
	return b.String()
}

func (r *Result) oracleParams(ip InstancePlan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# dbhost place: init parameters for %s (%s, %s). Apply with ALTER SYSTEM ... SCOPE=SPFILE and restart.\n", ip.Name, r.Strategy, ip.Class)
	if ip.Group != "" {
		fmt.Fprintf(&b, "# binds the instance to cpus %s, mems %s (001: processor_group_name, 12.1+)\n", cpulist.Format(ip.CPUs), cpulist.Format(ip.Mems))
		fmt.Fprintf(&b, "*.processor_group_name='%s'\n", ip.Group)
	}
	switch {
	case ip.Caged:
		b.WriteString("# instance caging: cpu_count limits the instance once a resource manager plan is active (001)\n")
		fmt.Fprintf(&b, "*.cpu_count=%d\n*.resource_manager_plan='DEFAULT_PLAN'\n", ip.CPUCount)
	case ip.Group == "":
		fmt.Fprintf(&b, "# not bound, not caged (001, customer case 3 option 1): the paying database may use every CPU (%d threads);\n# cpu_count and resource_manager_plan are left to their defaults\n", len(ip.CPUs))
	case !ip.Guaranteed():
		// 001: the non-paying databases go into their own cgroup "without caging".
		fmt.Fprintf(&b, "# not caged (001: the non-paying databases share their cgroup without caging): cpu_count is left\n# to Oracle, which sizes it from the cpuset (%d threads); no resource manager plan is needed\n", len(ip.CPUs))
	default:
		// Bound, not caged: a cpu_count set without a plan reads as caging
		// left half-done; Oracle sizes it from the processor group.
		fmt.Fprintf(&b, "# bound, not caged: cpu_count is left to Oracle, which sizes it from the cpuset (%d threads);\n# no resource manager plan is needed\n", len(ip.CPUs))
	}
	if len(ip.Hugepages) > 0 {
		b.WriteString("*.use_large_pages='ONLY'\n")
	}
	// _enable_NUMA_support is for the paying instances only: 001 ran every
	// test with its default FALSE, which a non-paying database keeps.
	if ip.Group != "" && ip.Guaranteed() && len(ip.Mems) > 1 && len(ip.Hugepages) > 0 {
		b.WriteString("# bound to several nodes with large pages: without NUMA support the SGA fills one node first (001).\n")
		b.WriteString("# _enable_NUMA_support is a hidden parameter: set it only with Oracle Support's agreement.\n")
		b.WriteString("*._enable_NUMA_support=TRUE\n")
	}
	if ll := r.localListener(ip); ll != "" {
		fmt.Fprintf(&b, "*.local_listener='%s'\n", ll)
	}
	return b.String()
}

func (r *Result) serviceDropIn(ip InstancePlan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# dbhost place: %s (%s, %s). Copy into the drop-in directory of the unit that runs it\n# (e.g. /etc/systemd/system/postgresql.service.d/), then systemctl daemon-reload and restart.\n[Service]\n", ip.Name, ip.Engine, ip.Class)
	if ip.Group != "" {
		fmt.Fprintf(&b, "Slice=%s.slice\n", ip.Group)
		fmt.Fprintf(&b, "AllowedCPUs=%s\nAllowedMemoryNodes=%s\n", cpulist.Format(ip.CPUs), cpulist.Format(ip.Mems))
	}
	if ip.Caged {
		fmt.Fprintf(&b, "CPUQuota=%d%%\n", ip.CPUCount*100)
	}
	if ip.Group == "" && len(ip.Mems) > 1 {
		b.WriteString("NUMAPolicy=interleave\n")
		fmt.Fprintf(&b, "NUMAMask=%s\n", cpulist.Format(ip.Mems))
	}
	return b.String()
}

func (r *Result) numactl(ip InstancePlan) string {
	if ip.Group == "" {
		return "numactl --interleave=" + cpulist.Format(ip.Mems)
	}
	return fmt.Sprintf("numactl --physcpubind=%s --membind=%s", cpulist.Format(ip.CPUs), cpulist.Format(ip.Mems))
}

// listener is one listener per NUMA node on that node's NIC (000 Scenario 3).
type listener struct {
	node int
	name string
	nic  string
	host string
}

// nodeListeners lists one listener per node that has a NIC, when the host
// has several nodes with CPUs and runs Oracle.
func (r *Result) nodeListeners() []listener {
	t := r.topo
	withCPU := 0
	for _, n := range t.nodes {
		if len(n.cores) > 0 {
			withCPU++
		}
	}
	oracle := false
	for _, ip := range r.Instances {
		oracle = oracle || ip.Engine == "oracle"
	}
	if withCPU < 2 || !oracle {
		return nil
	}
	var out []listener
	seen := map[int]bool{}
	used := map[string]bool{}    // interfaces a listener is on: a bond's slaves on several nodes share its one address
	for _, ifc := range t.nics { // sorted by name in the snapshot
		if ifc.NUMANode == nil || seen[*ifc.NUMANode] || ifc.Kind != "physical" {
			continue
		}
		// A bond's slave has no address of its own: the listener is on its
		// bond (master), whose traffic the slave's node serves.
		on, nic := ifc, ifc.Name
		if ifc.Master != "" {
			m, ok := t.nic(ifc.Master)
			if !ok {
				m = snapshot.Interface{Name: ifc.Master}
			}
			on, nic = m, m.Name+" (slave "+ifc.Name+")"
		}
		if used[on.Name] {
			continue
		}
		used[on.Name] = true
		seen[*ifc.NUMANode] = true
		host := "<address of " + on.Name + ">"
		if len(on.IPv4) > 0 {
			host, _, _ = strings.Cut(on.IPv4[0], "/")
		}
		out = append(out, listener{node: *ifc.NUMANode, name: fmt.Sprintf("LISTENER_N%d", *ifc.NUMANode), nic: nic, host: host})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].node < out[j].node })
	return out
}

// listenersFor are the listeners on an instance's nodes (all when it has none of its own).
func (r *Result) listenersFor(ip InstancePlan) []listener {
	all := r.nodeListeners()
	var out []listener
	for _, l := range all {
		if inList(ip.Mems, l.node) {
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		return all
	}
	return out
}

func addr(l listener) string {
	return fmt.Sprintf("(ADDRESS=(PROTOCOL=TCP)(HOST=%s)(PORT=1521))", l.host)
}

func (r *Result) localListener(ip InstancePlan) string {
	ls := r.listenersFor(ip)
	if len(ls) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("(ADDRESS_LIST=")
	for _, l := range ls {
		b.WriteString(addr(l))
	}
	b.WriteString(")")
	return b.String()
}

func (r *Result) listeners() (listenerOra, tnsnames string) {
	ls := r.nodeListeners()
	if len(ls) == 0 {
		return "", ""
	}
	var lo, tn strings.Builder
	lo.WriteString("# dbhost place: one listener per NUMA node, each on that node's NIC (000 Scenario 3:\n# one listener on node 0's NIC left node 0 99% busy while the others were at 50%).\n# Each NIC needs its own subnet so replies leave by the NIC the request came in on.\n")
	for _, l := range ls {
		fmt.Fprintf(&lo, "\n# node %d, NIC %s\n%s =\n  (DESCRIPTION_LIST =\n    (DESCRIPTION =\n      %s\n    )\n  )\n", l.node, l.nic, l.name, addr(l))
	}
	tn.WriteString("# dbhost place: clients spread their connections over the listeners of each instance's nodes.\n")
	for _, ip := range r.Instances {
		if ip.Engine != "oracle" {
			continue
		}
		fmt.Fprintf(&tn, "\n%s =\n  (DESCRIPTION =\n    (ADDRESS_LIST =\n      (LOAD_BALANCE = ON)\n", strings.ToUpper(ip.Name))
		for _, l := range r.listenersFor(ip) {
			fmt.Fprintf(&tn, "      %s\n", addr(l))
		}
		fmt.Fprintf(&tn, "    )\n    (CONNECT_DATA = (SERVICE_NAME = %s))\n  )\n", ip.Name)
	}
	return lo.String(), tn.String()
}

// readme is README.txt: the placement's view, then what each file is for.
func readme(cgroupVersion string, view []byte) string {
	var b strings.Builder
	b.Write(view)
	b.WriteString("\nFiles:\n")
	switch cgroupVersion {
	case "v1", "hybrid":
		b.WriteString("  cgconfig.conf        this host uses cgroup v1 cpusets: install as /etc/cgconfig.conf (or cgconfig.d) and start cgconfig\n")
		b.WriteString("  systemd/*.slice      cgroup v2 form, for when the host moves to v2\n")
	default:
		b.WriteString("  systemd/*.slice      this host uses cgroup v2: install in /etc/systemd/system, daemon-reload\n")
		b.WriteString("  cgconfig.conf        cgroup v1 form (libcgroup), for v1 hosts\n")
	}
	b.WriteString("  oracle/NAME.ora      init parameters per Oracle instance (restart needed for processor_group_name)\n")
	b.WriteString("  systemd/NAME.service.d/  drop-ins for PostgreSQL / MySQL / other services; numactl.txt for the rest\n")
	b.WriteString("  hugepages.sh         per-node hugepage pools; systemd/dbhost-hugepages.service sets them at boot (or the kernel command line it quotes)\n")
	b.WriteString("  libvirt/DOMAIN.xml   kvm-guest: the <cputune>, <numatune>, <memoryBacking>, <vcpu>, <memory> and <cpu> elements of the domain\n")
	b.WriteString("  libvirt/DOMAIN.virsh.sh  kvm-guest: the virsh commands (--config) for what virsh can set\n")
	b.WriteString("  oracle/listener.ora, tnsnames.ora  one listener per NUMA node (multi-node Oracle hosts with NICs on known nodes)\n")
	b.WriteString("Changing cpuset.cpus of a running group is live; changing cpuset.mems moves no memory without\nmemory_migrate=1, and an SGA in large pages stays where it is until a restart (001).\n")
	return b.String()
}

func inList(a []int, v int) bool {
	for _, x := range a {
		if x == v {
			return true
		}
	}
	return false
}
