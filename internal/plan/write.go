package plan

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/outdir"
	"github.com/dbhost/dbhost/internal/rules"
)

// Artifact paths inside a plan directory.
const (
	TunedFile   = "tuned.conf"
	SysctlFile  = "sysctl.d/90-dbhost.conf"
	UdevFile    = "udev/60-dbhost-block.rules"
	LimitsFile  = "limits.d/90-dbhost.conf"
	BootArgFile = "boot-args.txt"
)

// Artifacts returns every file Write puts in a plan directory, by relative path.
func (p *Plan) Artifacts() (map[string][]byte, error) {
	j, err := p.JSON()
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{
		FileName:    j,
		SysctlFile:  p.SysctlConf(),
		UdevFile:    p.UdevRules(),
		LimitsFile:  p.LimitsConf(),
		BootArgFile: p.BootArgs(),
	}
	if !p.TunedV02 {
		files[TunedFile] = p.TunedConf() // tuned 0.2 (RHEL 6) cannot load a tuned 2.x profile
	}
	return files, nil
}

// ArtifactNames are the files Write puts in the plan directory, in the
// order a summary lists them.
func (p *Plan) ArtifactNames() []string {
	if p.TunedV02 {
		return []string{FileName, SysctlFile, UdevFile, LimitsFile, BootArgFile}
	}
	return []string{FileName, TunedFile, SysctlFile, UdevFile, LimitsFile, BootArgFile}
}

// Write writes the plan directory dir the way every dbhost directory
// output is written (internal/outdir): only dbhost's own files, listed in a
// manifest; a directory holding anything else is refused
// (*outdir.RefusedError, naming the file); a previous plan is replaced
// atomically. A plan directory written before manifests is recognized by
// its files (the artifact names, each with dbhost plan's header).
func (p *Plan) Write(dir string) error {
	files, err := p.Artifacts()
	if err != nil {
		return err
	}
	out := outdir.Spec{Command: "dbhost plan", Files: map[string]outdir.File{}, Legacy: legacyPlanFile}
	for n, b := range files {
		out.Files[n] = outdir.File{Data: b}
	}
	_, err = outdir.Write(dir, out)
	return err
}

// legacyPlanFile recognizes a file of a plan directory written before
// manifests: one of the artifact names, with its dbhost plan header.
func legacyPlanFile(rel string, b []byte) bool {
	switch rel {
	case FileName:
		return bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) && bytes.Contains(b, []byte(`"schema_version"`))
	case TunedFile, SysctlFile, UdevFile, LimitsFile, BootArgFile:
		first, _, _ := bytes.Cut(b, []byte("\n"))
		return bytes.Contains(first, []byte("written by dbhost plan"))
	}
	return false
}

func (p *Plan) header(b *strings.Builder, what string) {
	fmt.Fprintf(b, "# %s written by dbhost plan for host %s (workload %s, db %s).\n", what, orDash(p.Host), p.Workload, p.DB)
	fmt.Fprintf(b, "# Every setting names the rule that wants it; see plan.json for the evidence.\n")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// comment is the "# rule: why" line above a setting.
func comment(c change.Change) string {
	s := "# " + oneLine(c.Rule)
	switch {
	case c.InPlace:
		s += ": already in place, kept so that it survives a reboot"
	case c.Why != "":
		s += ": " + oneLine(c.Why)
	}
	if !c.InPlace && c.Current != "" {
		s += " (now " + oneLine(c.Current) + ")"
	}
	if c.Risk != "" {
		s += " RISK: " + oneLine(c.Risk)
	}
	return s
}

// guarded comments out the setting line of a risky change: the artifacts
// never carry out what apply refuses without --accept-risk. The reader
// uncomments it after checking the risk the line above quotes.
func guarded(c change.Change, line string) string {
	if c.Risk == "" {
		return line
	}
	return "# (risky: uncomment only after checking the RISK above) " + line
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// SysctlConf is sysctl.d/90-dbhost.conf.
func (p *Plan) SysctlConf() []byte {
	var b strings.Builder
	p.header(&b, "/etc/sysctl.d/90-dbhost.conf")
	for _, c := range p.Changes {
		if c.Kind == change.Sysctl {
			fmt.Fprintf(&b, "%s\n%s\n", comment(c), guarded(c, c.Key+" = "+c.Value))
		}
	}
	return []byte(b.String())
}

// LimitsConf is limits.d/90-dbhost.conf.
func (p *Plan) LimitsConf() []byte {
	var b strings.Builder
	p.header(&b, "/etc/security/limits.d/90-dbhost.conf")
	for _, c := range p.Changes {
		if c.Kind == change.Limit {
			fmt.Fprintf(&b, "%s\n%s %s\n", comment(c), strings.Join(strings.Fields(c.Key), " "), c.Value)
		}
	}
	return []byte(b.String())
}

// BootArgs is boot-args.txt: each argument, its reason and how the host's
// distribution persists it (BootLoader): a grubby command on the Red Hat
// family; on Debian/Ubuntu and SUSE the /etc/default/grub edit, written as
// a comment (it is not a command), and the one command that regenerates
// grub.cfg; grubby and the edit when the distribution is not known.
func (p *Plan) BootArgs() []byte {
	var b strings.Builder
	p.header(&b, "Boot arguments (pending reboot; dbhost never changes them itself)")
	if len(p.PendingReboot) == 0 {
		b.WriteString("# No boot argument to change.\n")
		return []byte(b.String())
	}
	switch p.BootLoader {
	case rules.BootUpdateGrub, rules.BootGrub2Mkconfig:
		regen := "update-grub"
		if p.BootLoader == rules.BootGrub2Mkconfig {
			regen = "grub2-mkconfig -o /boot/grub2/grub.cfg"
		}
		b.WriteString("# Edit /etc/default/grub (a file edit, not a command): change GRUB_CMDLINE_LINUX as each line below says,\n")
		b.WriteString("# then run the last line. Each takes effect at the next reboot.\n")
		for _, c := range p.PendingReboot {
			b.WriteString(comment(c) + "\n")
			if c.Remove {
				fmt.Fprintf(&b, "#   edit /etc/default/grub: remove %s=... from GRUB_CMDLINE_LINUX\n", oneLine(c.Key))
			} else {
				fmt.Fprintf(&b, "#   edit /etc/default/grub: add %s to GRUB_CMDLINE_LINUX\n", oneLine(BootArg(c)))
			}
		}
		b.WriteString(regen + "\n")
		return []byte(b.String())
	case rules.BootGrubby:
		b.WriteString("# Each takes effect at the next reboot.\n")
	default:
		b.WriteString("# The distribution is not known: grubby on the Red Hat family; elsewhere make the same edit to GRUB_CMDLINE_LINUX\n")
		b.WriteString("# in /etc/default/grub, then update-grub (Debian, Ubuntu) or grub2-mkconfig -o /boot/grub2/grub.cfg (SUSE).\n")
		b.WriteString("# Each takes effect at the next reboot.\n")
	}
	for _, c := range p.PendingReboot {
		b.WriteString(comment(c) + "\n")
		if c.Remove {
			fmt.Fprintf(&b, "grubby --update-kernel=ALL --remove-args=%s\n", change.Quote(c.Key))
		} else {
			fmt.Fprintf(&b, "grubby --update-kernel=ALL --args=%s\n", change.Quote(BootArg(c)))
		}
	}
	return []byte(b.String())
}

// BootArg is a boot argument as written on the kernel command line.
func BootArg(c change.Change) string {
	if c.Value == "" {
		return c.Key
	}
	return c.Key + "=" + c.Value
}

// blockAttr splits a block-queue or SCSI sysfs path into the udev rule's
// subsystem, kernel name and attribute: /sys/block/sda/queue/scheduler →
// ("block", "sda", "queue/scheduler"); /sys/class/scsi_disk/0:0:0:0/cache_type
// → ("scsi_disk", "0:0:0:0", "cache_type"). ok is false for other paths.
func blockAttr(path string) (subsys, kernel, attr string, ok bool) {
	for _, pre := range []struct{ prefix, subsys string }{
		{"/sys/block/", "block"},
		{"/sys/class/block/", "block"},
		{"/sys/class/scsi_disk/", "scsi_disk"},
	} {
		if rest, found := strings.CutPrefix(path, pre.prefix); found {
			k, a, _ := strings.Cut(rest, "/")
			if k == "" || a == "" {
				return "", "", "", false
			}
			return pre.subsys, k, a, true
		}
	}
	return "", "", "", false
}

// UdevRules is udev/60-dbhost-block.rules: one rule per block setting; a
// change whose Match names its device class is written once for the class.
func (p *Plan) UdevRules() []byte {
	var b strings.Builder
	p.header(&b, "/etc/udev/rules.d/60-dbhost-block.rules")
	seen := map[string]bool{}
	for _, c := range p.Changes {
		if c.Kind != change.Sysfs {
			continue
		}
		subsys, kernel, attr, ok := blockAttr(c.Key)
		if !ok {
			continue
		}
		if why := udevUnsafe(c, kernel, attr); why != "" {
			// Not a rule at all: a rules file is run by root at every
			// device event, and a " or $ in a value would be its code.
			line := "# dbhost: no udev rule for " + oneLine(fmt.Sprintf("%q", c.Key)) + ": " + why
			if !seen[line] {
				seen[line] = true
				fmt.Fprintf(&b, "%s\n%s\n", comment(c), line)
			}
			continue
		}
		match := c.Match
		if match == "" {
			match = fmt.Sprintf("SUBSYSTEM==%q, KERNEL==%q", subsys, kernel)
		} else if !strings.Contains(match, "SUBSYSTEM==") {
			match = fmt.Sprintf("SUBSYSTEM==%q, %s", subsys, match)
		}
		line := fmt.Sprintf("ACTION==\"add|change\", %s, ATTR{%s}=%q", match, attr, c.Value)
		if strings.ContainsAny(attr, "*?[") {
			// udev's ATTR{} takes no glob (device/scsi_disk/*/cache_type): write it from a shell.
			line = fmt.Sprintf("ACTION==\"add|change\", %s, RUN+=\"/bin/sh -c 'echo %s > /sys$devpath/%s'\"", match, c.Value, attr)
		}
		if seen[line] {
			continue
		}
		seen[line] = true
		fmt.Fprintf(&b, "%s\n%s\n", comment(c), guarded(c, line))
	}
	return []byte(b.String())
}

// udevUnsafe says why a block setting cannot be a udev rule ("" when it
// can): its kernel name and attribute must be plain words
// ([A-Za-z0-9_./:=,+@%-], change.SafeWord; the attribute may hold a glob's
// *), its value plain words one space apart, and its match only udev match clauses (udevMatchOnly). A udev value
// ends at a ", and $ and % are substituted in RUN: a name from the host or a
// value from plan.json must not become an assignment or a shell command.
func udevUnsafe(c change.Change, kernel, attr string) string {
	switch {
	case !change.SafeWord(kernel) || strings.ContainsAny(kernel, "%="):
		return "the device name is not a plain word"
	case !change.SafeWord(strings.ReplaceAll(attr, "*", "x")) || strings.ContainsAny(attr, "%="):
		return "the attribute is not a plain path"
	case !plainWords(c.Value):
		return "the value is not plain words"
	case c.Match != "" && !udevMatchOnly(c.Match):
		return "the match is not a list of KEY==\"value\" or KEY!=\"value\" clauses"
	}
	return ""
}

// plainWords reports whether s is plain words (change.SafeWord, no %)
// one space apart ("write back").
func plainWords(s string) bool {
	ws := strings.Fields(s)
	for _, w := range ws {
		if !change.SafeWord(w) || strings.Contains(w, "%") {
			return false
		}
	}
	return len(ws) > 0 && strings.Join(ws, " ") == s
}

// udevMatchOnly reports whether m is a comma-separated list of udev match
// clauses, KEY=="value" or KEY!="value" (KEY letters and _, with an
// optional {name} of letters, digits, _ and /), each value free of " \\ $
// % and control characters: no assignment (=, +=, :=) can hide in it.
func udevMatchOnly(m string) bool {
	for _, cl := range strings.Split(m, ",") {
		cl = strings.TrimSpace(cl)
		i := 0
		for i < len(cl) && (cl[i] >= 'A' && cl[i] <= 'Z' || cl[i] == '_') {
			i++
		}
		if i == 0 {
			return false
		}
		if i < len(cl) && cl[i] == '{' {
			j := strings.IndexByte(cl[i:], '}')
			if j < 0 {
				return false
			}
			for _, r := range cl[i+1 : i+j] {
				if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '/') {
					return false
				}
			}
			i += j + 1
		}
		rest := cl[i:]
		if !strings.HasPrefix(rest, "==\"") && !strings.HasPrefix(rest, "!=\"") {
			return false
		}
		v := rest[3:]
		if len(v) == 0 || v[len(v)-1] != '"' {
			return false
		}
		for _, r := range v[:len(v)-1] {
			if r < 0x20 || r == 0x7f || strings.ContainsRune("\"\\$%", r) {
				return false
			}
		}
	}
	return true
}

// tuned [disk] options for block-queue attributes.
var diskOption = map[string]string{
	"queue/scheduler":     "elevator",
	"queue/read_ahead_kb": "readahead",
}

// thpOption maps THP sysfs files to tuned [vm] options.
var thpOption = map[string]string{
	"/sys/kernel/mm/transparent_hugepage/enabled": "transparent_hugepages",
	"/sys/kernel/mm/transparent_hugepage/defrag":  "transparent_hugepage.defrag",
}

// cpuOption maps a per-CPU or intel_pstate sysfs change to tuned's [cpu]
// option (tuned applies it to every CPU): the governor, energy_perf_bias
// (0 is tuned's "performance"), and intel_pstate's min/max_perf_pct and
// no_turbo. Per-CPU changes of one value become one line (dedupPairs).
func cpuOption(c change.Change) (opt, val string, ok bool) {
	const cpuDir, pstate = "/sys/devices/system/cpu/", "/sys/devices/system/cpu/intel_pstate/"
	switch {
	case strings.HasPrefix(c.Key, cpuDir) && strings.HasSuffix(c.Key, "/cpufreq/scaling_governor"):
		return "governor", c.Value, true
	case strings.HasPrefix(c.Key, cpuDir) && strings.HasSuffix(c.Key, "/power/energy_perf_bias"):
		if c.Value == "0" {
			return "energy_perf_bias", "performance", true
		}
		return "energy_perf_bias", c.Value, true
	case strings.HasPrefix(c.Key, pstate):
		switch name := strings.TrimPrefix(c.Key, pstate); name {
		case "min_perf_pct", "max_perf_pct", "no_turbo":
			return name, c.Value, true
		}
	}
	return "", "", false
}

// TunedConf is a tuned 2.20 profile. It uses only the option names
// tuned-2.20-plugin-options.txt lists: [main] include, [sysctl], [vm]
// transparent_hugepages, [disk] instances (type=disk, devices=, elevator,
// readahead), [cpu] governor, energy_perf_bias, min_perf_pct, max_perf_pct,
// no_turbo, [sysfs] paths, [bootloader] cmdline.
func (p *Plan) TunedConf() []byte {
	var b strings.Builder
	b.WriteString("# tuned 2.20 profile written by dbhost plan; install as /etc/tuned/<name>/tuned.conf.\n")
	b.WriteString("# Every setting names the rule that wants it; see plan.json for the evidence.\n")
	fmt.Fprintf(&b, "[main]\nsummary=dbhost plan for %s (workload %s, db %s)\n", oneLine(orDash(p.Host)), p.Workload, p.DB)
	if p.TunedWhy != "" {
		fmt.Fprintf(&b, "# %s\n", oneLine(p.TunedWhy))
	}
	fmt.Fprintf(&b, "include=%s\n", p.TunedProfile)

	var sysctl, vm, cpu, sysfs []string
	// Block devices: tuned gives a device to one instance of a plugin, so
	// every [disk] option of one device goes into one instance; devices of
	// one class with the same options share it.
	type diskDev struct {
		name, match string
		opts        map[string]string // tuned option → value
		cs          []change.Change
	}
	var devOrder []string
	devs := map[string]*diskDev{}
	for _, c := range p.Changes {
		switch c.Kind {
		case change.Sysctl:
			sysctl = append(sysctl, comment(c), guarded(c, c.Key+"="+c.Value))
		case change.Sysfs:
			if opt, ok := thpOption[c.Key]; ok {
				vm = append(vm, comment(c), guarded(c, opt+"="+c.Value))
				continue
			}
			if opt, val, ok := cpuOption(c); ok {
				cpu = append(cpu, comment(c), guarded(c, opt+"="+val))
				continue
			}
			if subsys, dev, attr, ok := blockAttr(c.Key); ok && subsys == "block" && c.Risk == "" && !strings.ContainsAny(dev, ",!* \t") {
				if opt, ok := diskOption[attr]; ok {
					d := devs[dev]
					if d == nil {
						d = &diskDev{name: dev, match: c.Match, opts: map[string]string{}}
						devs[dev] = d
						devOrder = append(devOrder, dev)
					}
					d.opts[opt] = c.Value
					d.cs = append(d.cs, c)
					continue
				}
			}
			sysfs = append(sysfs, comment(c), guarded(c, c.Key+"="+c.Value))
		}
	}
	type diskClass struct {
		match   string
		opts    map[string]string
		devices []string
		cs      []change.Change
	}
	var disks []*diskClass
	diskBy := map[string]*diskClass{}
	for _, name := range devOrder {
		d := devs[name]
		k := d.match
		for _, o := range []string{"elevator", "readahead"} {
			k += "\x00" + o + "=" + d.opts[o]
		}
		g := diskBy[k]
		if g == nil {
			g = &diskClass{match: d.match, opts: d.opts}
			diskBy[k] = g
			disks = append(disks, g)
		}
		g.devices = append(g.devices, name)
		g.cs = append(g.cs, d.cs...)
	}
	section := func(name string, lines []string) {
		if len(lines) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n[%s]\n", name)
		for _, l := range lines {
			b.WriteString(l + "\n")
		}
	}
	section("sysctl", sysctl)
	section("vm", dedupPairs(vm))
	section("cpu", dedupPairs(cpu))
	// The base profile's [disk] instance would otherwise claim every disk
	// first (tuned gives a device to one instance), including zram devices
	// whose scheduler file makes the plugin fail half way (tuned-2.20 notes).
	b.WriteString("\n[disk]\n# the base profile's disk tuning, minus zram and the devices tuned by the instances below\n")
	excl := []string{"!zram*"}
	for _, d := range disks {
		for _, dev := range d.devices {
			excl = append(excl, "!"+dev)
		}
	}
	fmt.Fprintf(&b, "devices=%s\n", strings.Join(excl, ","))
	for i, d := range disks {
		fmt.Fprintf(&b, "\n[dbhost_disk%d]\n", i+1)
		rulesSeen := map[string]bool{}
		for _, c := range d.cs {
			if !rulesSeen[c.Rule] {
				rulesSeen[c.Rule] = true
				b.WriteString(comment(change.Change{Rule: c.Rule, Why: c.Why, Risk: c.Risk}) + "\n")
			}
		}
		if d.match != "" {
			fmt.Fprintf(&b, "# device class: %s\n", oneLine(d.match))
		}
		fmt.Fprintf(&b, "type=disk\ndevices=%s\n", strings.Join(d.devices, ","))
		for _, o := range []string{"elevator", "readahead"} {
			if v, ok := d.opts[o]; ok {
				fmt.Fprintf(&b, "%s=%s\n", o, v)
			}
		}
	}
	section("sysfs", sysfs)
	var boot []string
	var removed []string
	for _, c := range p.PendingReboot {
		if c.Remove {
			removed = append(removed, c.Key)
			continue
		}
		boot = append(boot, BootArg(c))
	}
	if len(boot) > 0 || len(removed) > 0 {
		b.WriteString("\n")
		if p.TunedBootloader && len(boot) > 0 {
			b.WriteString("[bootloader]\n")
			fmt.Fprintf(&b, "# boot arguments from: %s (pending reboot)\n", bootRules(p.PendingReboot, false))
			fmt.Fprintf(&b, "cmdline=%s\n", strings.Join(boot, " "))
		} else {
			b.WriteString("# [bootloader] is left out: dbhost changes boot arguments only with grubby (boot-args.txt).\n")
			if len(boot) > 0 {
				b.WriteString("# Re-run dbhost plan with --tuned-bootloader to let tuned add them instead:\n")
				fmt.Fprintf(&b, "# [bootloader]\n# cmdline=%s   (%s)\n", strings.Join(boot, " "), bootRules(p.PendingReboot, false))
			}
		}
		if len(removed) > 0 {
			fmt.Fprintf(&b, "# tuned cannot remove arguments it did not add; remove with grubby (boot-args.txt): %s   (%s)\n",
				strings.Join(removed, " "), bootRules(p.PendingReboot, true))
		}
	}
	return []byte(b.String())
}

func bootRules(cs []change.Change, remove bool) string {
	var ids []string
	seen := map[string]bool{}
	for _, c := range cs {
		if c.Remove == remove && !seen[c.Rule] {
			seen[c.Rule] = true
			ids = append(ids, c.Rule)
		}
	}
	return strings.Join(ids, ", ")
}

// dedupPairs keeps the first (comment, option=value) pair per option: the
// per-CPU governor changes of one plan are one [cpu] governor= line.
func dedupPairs(lines []string) []string {
	var out []string
	seen := map[string]bool{}
	for i := 0; i+1 < len(lines); i += 2 {
		if seen[lines[i+1]] {
			continue
		}
		seen[lines[i+1]] = true
		out = append(out, lines[i], lines[i+1])
	}
	return out
}

// GroupByCPU groups the changes that differ only in their CPU (the same
// value from the same current value for the same rule on many CPUs): one
// line for a 240-CPU host's governors instead of 240.
func GroupByCPU(cs []change.Change) [][]int {
	return cpulist.GroupPerCPU(len(cs), func(i int) string { return cs[i].Key }, func(i int) string {
		c := cs[i]
		return strings.Join([]string{string(c.Kind), c.Current, c.Value, c.Rule, c.Risk}, "\x00")
	})
}

// CPUKey names a group of changes (cpulist.GroupLabel).
func CPUKey(cs []change.Change, g []int) string {
	keys := make([]string, len(g))
	for k, i := range g {
		keys[k] = cs[i].Key
	}
	return cpulist.GroupLabel(keys)
}
