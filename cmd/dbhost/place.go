package main

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/dbhost/dbhost/internal/apply"
	"github.com/dbhost/dbhost/internal/input"
	"github.com/dbhost/dbhost/internal/libvirt"
	"github.com/dbhost/dbhost/internal/place"
	"github.com/dbhost/dbhost/internal/report"
	"github.com/dbhost/dbhost/internal/snapshot"
	"github.com/spf13/cobra"
)

func newPlaceCmd() *cobra.Command {
	var src sourceFlags
	var specPath, format, outDir string
	var doApply, memoryMigrate, dryRun bool
	var stateDir, libvirtURI string
	c := &cobra.Command{
		Use:   "place",
		Short: "Plan where database instances run on the NUMA nodes (binding, caging or mix)",
		Long: `Place reads a spec of database instances and plans their CPUs, memory nodes and
hugepages on this host (or --root, --snapshot, --sosreport), following seed 001's three
approaches: binding (one cpuset per guaranteed instance, whole cores, packed into as few
and as near nodes as possible, mems = the nodes of its CPUs), caging (cpu_count limits,
SGA interleaved over all nodes) and mix (one cpuset for the guaranteed instances, each
caged inside; best-effort ones in a disjoint cpuset). engine: kvm-guest places a KVM
guest (cpus = vCPUs, memory_gb = RAM, domain = its libvirt domain): vCPUs pinned to whole
cores first, memory strict on their nodes in hugepages, emulator threads on a core of their
own where there is room. See docs/place.md for the spec.

The placement prints as text (default), JSON (--format json: the whole result) or
Markdown (--format markdown: the same view, the instances as a table, for a change
ticket or a wiki); --apply's summary too. -o DIR writes the artifacts whatever the format.

-o DIR writes the artifacts (only dbhost's files, listed in DIR/.dbhost-manifest; a
previous placement is replaced atomically; a directory holding any other file is refused
with exit 2, naming it): cgconfig.conf (cgroup v1), systemd slices and drop-ins
(cgroup v2), Oracle parameters, numactl lines, per-node hugepage pools and, on a
multi-node Oracle host, one listener per node on that node's NIC; per kvm-guest libvirt/DOMAIN.xml
(the domain's <cputune>, <numatune>, <memoryBacking>, <cpu> cells) and libvirt/DOMAIN.virsh.sh.

--apply carries the plan out, journaled like 'dbhost apply' (rollback with 'dbhost
rollback', same --state-dir): one cgroup per cpuset of the plan (named as in the
artifacts), on the host's cpuset hierarchy (v1 cpuset mount, or v2 with +cpuset),
its cpuset.cpus and cpuset.mems, the instances' running PIDs moved into it, and the
per-node hugepage pools. A cpus change is live; a mems change moves new allocations
only (memory_migrate, --memory-migrate on v1, and a restart move the rest). Caging
plans have nothing to apply for cgroups. --dry-run prints what --apply would do.

Exit codes: 0 feasible (applied), 4 infeasible (every reason is listed), 2 bad spec
(file:line), bad flags or an -o directory holding files dbhost did not write, 1 a change
failed (rollback restores), 6 (--apply) another dbhost apply/rollback holds the lock.`,
		Example: `  dbhost place --spec instances.yaml
  dbhost place --spec instances.yaml --snapshot host.json --format json
  dbhost place --spec instances.yaml -o plan/
  dbhost place --spec instances.yaml --format markdown -o plan/ > placement.md
  dbhost place --spec instances.yaml --apply --dry-run
  dbhost place --spec instances.yaml --apply`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if !doApply && (dryRun || memoryMigrate || stateDir != "" || c.Flags().Changed("libvirt-uri")) {
				return usageErr("--dry-run, --memory-migrate, --state-dir and --libvirt-uri go with --apply")
			}
			if doApply && (src.snapshot != "" || src.sosreport != "") {
				return usageErr("--apply acts on this host or a --root tree, not on a --snapshot or --sosreport")
			}
			if format != "text" && format != "json" && format != "markdown" {
				return usageErr("--format %q: expected one of [text json markdown]", format)
			}
			if specPath == "" {
				return usageErr("--spec FILE is required (see docs/place.md)")
			}
			var data []byte
			var err error
			if specPath == "-" {
				data, err = input.ReadAll(c.InOrStdin(), "standard input", input.SpecBytes, "a placement spec")
			} else {
				data, err = input.ReadFile(specPath, input.SpecBytes, "a placement spec")
			}
			if err != nil {
				return usageErr("--spec: %v", err)
			}
			spec, err := place.ParseSpec(specPath, data)
			if err != nil {
				return usageErr("bad spec: %v", err)
			}
			var o apply.Options
			if doApply {
				// The lock before the host is read: another apply may be
				// writing the cgroups and pools this plan starts from.
				h := hostFlags{root: src.root, stateDir: stateDir, format: format, markdown: true}
				if o, err = h.options("place --apply"); err != nil {
					return err
				}
				o.DryRun = dryRun
				if !dryRun {
					h.changing()
				}
				l, err := lockState(c, &o, dryRun)
				if err != nil {
					return err
				}
				defer l.Unlock()
			}
			s, err := src.one("place")
			if err != nil {
				return err
			}
			if err := linuxOnly("place", s); err != nil {
				return err
			}
			r := place.Plan(s, spec)
			if doApply && r.Feasible {
				if outDir != "" {
					if err := writePlaceArtifacts(c, r, outDir, s.Cgroups.Version); err != nil {
						return err
					}
				}
				if r.HasGuests() {
					if o.LibvirtURI, err = placeLibvirt(src.root, libvirtURI); err != nil {
						return err
					}
				}
				return placeApply(c, r, s, o, format, memoryMigrate)
			}
			var b []byte
			switch format {
			case "json":
				b, err = report.JSON(r)
				if err != nil {
					return err
				}
			case "markdown":
				b = report.PlaceMarkdown(r)
			default:
				b = report.PlaceText(r)
			}
			if _, err := c.OutOrStdout().Write(b); err != nil {
				return err
			}
			if !r.Feasible {
				return &exitError{code: exitInfeasible, err: infeasibleErr(r)}
			}
			if outDir != "" {
				return writePlaceArtifacts(c, r, outDir, s.Cgroups.Version)
			}
			return nil
		},
	}
	src.add(c)
	fl := c.Flags()
	fl.StringVar(&specPath, "spec", "", "placement spec (YAML; '-' reads standard input)")
	fl.StringVar(&format, "format", "text", "output format: [text json markdown]")
	fl.StringVarP(&outDir, "output", "o", "", "write the artifacts into this directory (new, empty, or a previous placement; any other file there is refused)")
	fl.BoolVar(&doApply, "apply", false, "create the cgroups, write cpus/mems, move the running processes and size the hugepage pools, journaled")
	fl.BoolVar(&dryRun, "dry-run", false, "with --apply: print what would change, change nothing")
	fl.BoolVar(&memoryMigrate, "memory-migrate", false, "with --apply on cgroup v1: set cpuset.memory_migrate so the moved processes' pages follow them")
	fl.StringVar(&libvirtURI, "libvirt-uri", "", "with --apply: the libvirt connection the kvm-guests' domains are defined on (default qemu:///system on this host; required with --root)")
	fl.StringVar(&stateDir, "state-dir", "", "with --apply: journal directory (default /var/lib/dbhost; with --root, ROOT/var/lib/dbhost)")
	_ = c.MarkFlagDirname("output")
	return c
}

// placeApply carries a feasible placement out through the apply engine;
// the caller holds the state lock (o.Locked).
func placeApply(c *cobra.Command, r *place.Result, snap *snapshot.Snapshot, o apply.Options, format string, migrate bool) error {
	o.Plan = "dbhost place (" + r.Strategy + ")"
	a, err := place.Changes(r, snap, place.ApplyOptions{MemoryMigrate: migrate})
	if err != nil {
		return &exitError{code: exitInternal, err: err}
	}
	res, err := apply.Apply(a.Changes, o)
	if res != nil {
		out := struct {
			Placement *place.Result `json:"placement"`
			Hierarchy string        `json:"hierarchy,omitempty"`
			Notes     []string      `json:"notes"`
			Apply     *apply.Result `json:"apply"`
		}{r, a.Hierarchy, append([]string{}, a.Notes...), res}
		if werr := writeResult(c, format, "", out, func() []byte {
			return report.PlaceApplyText(r, a.Hierarchy, a.Notes, res)
		}, func() []byte {
			return report.PlaceApplyMarkdown(r, a.Hierarchy, a.Notes, res)
		}); werr != nil {
			return werr
		}
		warnAll(c, res.Warnings)
	}
	if err != nil {
		return stateErr(err, o.StateDir)
	}
	if n := res.Count(apply.StatusFailed); n > 0 {
		hint := ""
		if res.JournalID != "" {
			hint = "; 'dbhost rollback' restores every value this run touched"
		}
		return &exitError{code: exitInternal, err: fmt.Errorf("%d change(s) failed (listed above)%s", n, hint)}
	}
	return nil
}

// writePlaceArtifacts writes the artifacts of a feasible placement into
// dir (-o), their README headed by the placement's text whatever --format
// says, and names them on standard error.
func writePlaceArtifacts(c *cobra.Command, r *place.Result, dir, cgroupVersion string) error {
	names, err := r.WriteArtifacts(dir, cgroupVersion, report.PlaceText(r))
	if err != nil {
		return outDirErr(dir, err)
	}
	fmt.Fprintf(c.ErrOrStderr(), "wrote %d files to %s: %s\n", len(names), dir, strings.Join(names, " "))
	return nil
}

// infeasibleErr says why a placement is infeasible, one reason per line.
func infeasibleErr(r *place.Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "placement infeasible (%d reason(s)):", len(r.Errors))
	for _, e := range r.Errors {
		who := e.Instance
		if who == "" {
			who = "plan"
		}
		fmt.Fprintf(&b, "\n  %s: %s", who, e.Message)
	}
	return errors.New(b.String())
}

// placeLibvirt is the libvirt connection a plan with kvm-guests is applied
// through: --libvirt-uri, else qemu:///system on the live host (a --root
// tree has no libvirt of its own: the URI must be named). libvirt must
// answer there: without it, exit 2 saying so (nothing applied).
func placeLibvirt(root, uri string) (string, error) {
	if uri == "" {
		if root != "" {
			return "", usageErr("the plan holds kvm-guests and --root %s is a tree, not a host with libvirt: name the libvirt daemon with --libvirt-uri", root)
		}
		uri = "qemu:///system"
	}
	if _, err := exec.LookPath("virsh"); err != nil {
		return "", usageErr("the plan holds kvm-guests and libvirt is not present here (no virsh: %v): --apply needs libvirt to define their domains; -o DIR writes the fragments and virsh commands", err)
	}
	if err := (libvirt.Conn{URI: uri, Timeout: 20 * time.Second}).Check(); err != nil {
		return "", usageErr("the plan holds kvm-guests and libvirt does not answer on %s (%v): --apply needs it to define their domains; -o DIR writes the fragments and virsh commands", uri, err)
	}
	return uri, nil
}
