package apply

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/lazyre"
	"github.com/dbhost/dbhost/internal/libvirt"
)

// A libvirt-domain change (dbhost place --apply for a kvm-guest) edits the
// domain's persistent definition: its journal entry's Path is the libvirt
// connection URI, Key the domain, Old the whole definition before (with
// its secrets: virsh dumpxml --security-info), New the definition defined.
// Rollback defines Old back; verify compares the placement elements of the
// live definition with New's.

// uriRE bounds what a journal may name as a libvirt connection.
var uriRE = lazyre.New(`^[a-z][a-z0-9+]*://[^\s'"\x60;|&$<>]*$`)

func (o *Options) virsh(uri string) libvirt.Conn {
	return libvirt.Conn{URI: uri, Virsh: o.Virsh}
}

func checkLibvirtEntry(b Entry) error {
	if !uriRE().MatchString(b.Path) {
		return fmt.Errorf("%q is not a libvirt connection URI", b.Path)
	}
	if b.Key == "" || strings.HasPrefix(b.Key, "-") || strings.ContainsAny(b.Key, "/\n\x00") {
		return fmt.Errorf("%q is not a libvirt domain name", b.Key)
	}
	return nil
}

// prepareLibvirt reads the domain's definition and edits it with the
// change's fragments; nil when there is nothing to define.
func prepareLibvirt(c change.Change, opt Options, it *Item) *todo {
	it.New = "placement of domain " + c.Key
	if opt.LibvirtURI == "" {
		it.Status, it.Message = StatusFailed, "no libvirt connection: a kvm-guest placement needs libvirt (--libvirt-uri)"
		return nil
	}
	conn := opt.virsh(opt.LibvirtURI)
	it.Path = conn.URI
	if err := checkLibvirtEntry(Entry{Path: conn.URI, Key: c.Key}); err != nil {
		it.Status, it.Message = StatusFailed, err.Error()
		return nil
	}
	old, err := conn.DumpXML(c.Key)
	if err != nil {
		it.Status, it.Message = StatusFailed, "cannot read the domain's definition: "+err.Error()
		return nil
	}
	want, err := libvirt.FragmentView(c.Value)
	if err != nil {
		it.Status, it.Message = StatusFailed, "the placement: "+err.Error()
		return nil
	}
	have, err := libvirt.Placement(old)
	if err != nil {
		it.Status, it.Message = StatusFailed, "the domain's definition: "+err.Error()
		return nil
	}
	missing := have.Missing(want)
	if len(missing) == 0 {
		it.Current, it.Status = "as planned", StatusUnchanged
		return nil
	}
	it.Current = strings.Join(missing, "; ")
	edited, err := libvirt.Edit(old, c.Value)
	if err != nil {
		it.Status, it.Message = StatusFailed, err.Error()
		return nil
	}
	return &todo{kind: string(c.Kind), key: c.Key, path: conn.URI, old: old, value: edited, rule: c.Rule}
}

// runLibvirt defines one edited domain, journaled: the begin entry (old
// and new definitions) is on disk before virsh defines anything.
func runLibvirt(seq int, t *todo, opt Options, jf *journalFile, step func(), res *Result) error {
	begin := Entry{Seq: seq, State: StateBegin, Time: stamp(opt.now()), Kind: t.kind, Key: t.key, Path: t.path, Old: t.old, New: t.value, Rule: t.rule}
	if err := jf.append(begin); err != nil {
		return err
	}
	conn := opt.virsh(t.path)
	out := Entry{Seq: seq, State: StateDone}
	werr := conn.Define(t.value)
	step()
	if werr != nil {
		out.State, out.Error = StateFailed, werr.Error()
	} else if miss, err := libvirtMissing(conn, t.key, t.value); err != nil {
		out.State, out.Error = StateFailed, "read back: "+err.Error()
	} else if len(miss) > 0 {
		out.State, out.Error = StateFailed, "libvirt kept a different definition: "+strings.Join(miss, "; ")
	} else {
		out.Readback = "placement as defined"
	}
	out.Time = stamp(opt.now())
	return t.outcome(jf, res, out)
}

// libvirtMissing reads the domain's definition and lists what of the
// placement of want (a whole definition) it does not have.
func libvirtMissing(conn libvirt.Conn, domain, want string) ([]string, error) {
	live, err := conn.DumpXML(domain)
	if err != nil {
		return nil, err
	}
	lv, err := libvirt.Placement(live)
	if err != nil {
		return nil, err
	}
	wv, err := libvirt.Placement(want)
	if err != nil {
		return nil, err
	}
	return lv.Missing(wv), nil
}

// restoreLibvirt defines the old definition back, unless the live one
// already has its placement.
func restoreLibvirt(w *Write, opt Options, step func()) Restore {
	b := w.Begin
	r := Restore{Path: b.Path, Setting: b.Key, Old: fmt.Sprintf("definition of %d bytes", len(b.Old))}
	conn := opt.virsh(b.Path)
	oldView, err := libvirt.Placement(b.Old)
	if err != nil {
		r.Status, r.Message = RestoreFailed, "the journaled definition: "+err.Error()
		return r
	}
	same := func() (bool, error) {
		live, err := conn.DumpXML(b.Key)
		if err != nil {
			return false, err
		}
		r.Live = fmt.Sprintf("definition of %d bytes", len(live))
		lv, err := libvirt.Placement(live)
		if err != nil {
			return false, err
		}
		return reflect.DeepEqual(lv, oldView), nil
	}
	ok, err := same()
	if err == nil && ok {
		r.Status = RestoreUnchanged
		return r
	}
	if err != nil {
		r.Live = "(not read: " + err.Error() + ")"
	}
	err = conn.Define(b.Old)
	step()
	if err != nil {
		r.Status, r.Message = RestoreFailed, "define: "+err.Error()
		return r
	}
	switch ok, err := same(); {
	case err != nil:
		r.Status, r.Message = RestoreFailed, "read back: "+err.Error()
	case !ok:
		r.Status, r.Message = RestoreFailed, "libvirt accepted the old definition but keeps another placement"
	default:
		r.Status = RestoreDone
	}
	return r
}

// verifyLibvirt checks the live definition still has the placement the
// apply defined.
func verifyLibvirt(opt VerifyOptions, b Entry, c Check) Check {
	c.Want = "placement of domain " + b.Key + " as defined"
	conn := libvirt.Conn{URI: b.Path, Virsh: opt.Virsh}
	miss, err := libvirtMissing(conn, b.Key, b.New)
	switch {
	case c.Status != "":
		c.Live = "(not compared)"
	case err != nil:
		c.Live, c.Status, c.Cause = "(unreadable)", "absent", err.Error()
	case len(miss) > 0:
		c.Live, c.Status, c.Cause = strings.Join(miss, "; "), "drift", "the domain's definition was changed since the apply (virsh edit, define, or a management tool)"
	default:
		c.Live, c.Status = c.Want, "ok"
	}
	return c
}
