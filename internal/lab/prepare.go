package lab

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Unavailable means the lab cannot run on this machine (a package or tool is
// missing): the suite reports SKIP with the reason instead of failing.
type Unavailable struct{ Reason string }

func (e *Unavailable) Error() string { return e.Reason }

func unavailable(format string, a ...any) error {
	return &Unavailable{Reason: fmt.Sprintf(format, a...)}
}

// Assets are the prepared, cached inputs every VM shares.
type Assets struct {
	CacheDir      string
	QEMU          string               // qemu-system-x86_64
	KernelPackage string               // linux-image-6.1.0-56-amd64
	Kernel        string               // vmlinux (PVH entry)
	Initramfs     string               // base image: busybox, dbhost, /init
	DBHostSHA     string               // first 12 hex digits of the dbhost binary's sha256
	older         map[string][2]string // OlderKernels release → vmlinux, package, once prepared
	log           io.Writer
}

// PrepareOptions says where things are.
type PrepareOptions struct {
	CacheDir string // .cache/lab
	RepoDir  string // module root, for building ./cmd/dbhost
	Busybox  string // static busybox (default /bin/busybox from busybox-static)
	Log      io.Writer
	// CoverMode, when set ("set", "count", "atomic"), builds dbhost with
	// -cover over the module: every run in a guest then leaves coverage
	// counters that Run copies out (RunOptions.CoverDir).
	CoverMode string
}

// Prepare finds QEMU and busybox, fetches and unpacks the current Debian
// kernel (once per kernel version), builds a static dbhost and the base
// initramfs (once per dbhost build). Everything it writes is under CacheDir.
func Prepare(ctx context.Context, o PrepareOptions) (*Assets, error) {
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Busybox == "" {
		o.Busybox = "/bin/busybox"
	}
	a := &Assets{CacheDir: o.CacheDir, log: o.Log}
	var err error
	if a.QEMU, err = exec.LookPath("qemu-system-x86_64"); err != nil {
		return nil, unavailable("qemu-system-x86_64 not found (Debian package qemu-system-x86)")
	}
	if err := checkStatic(o.Busybox); err != nil {
		return nil, unavailable("no static busybox at %s (Debian package busybox-static): %v", o.Busybox, err)
	}
	if err := os.MkdirAll(o.CacheDir, 0o755); err != nil {
		return nil, err
	}
	if err := prepareKernel(ctx, a, o); err != nil {
		return nil, err
	}
	if err := prepareInitramfs(ctx, a, o); err != nil {
		return nil, err
	}
	return a, nil
}

// Lock takes the cache directory's lock (flock on <dir>/lock), waiting while
// another lab run in the same checkout holds it, so that two runs never share
// run directories or half-written files. The lock dies with the process.
func Lock(ctx context.Context, dir string, log io.Writer) (unlock func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	said := false
	for {
		busy, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("locking %s: %v", f.Name(), err)
		}
		if !busy {
			return func() { unlockFile(f); f.Close() }, nil
		}
		if !said && log != nil {
			fmt.Fprintf(log, "lab: waiting for another lab run (lock %s)\n", f.Name())
			said = true
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// checkStatic accepts an ELF executable without a program interpreter.
func checkStatic(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return errors.New("dynamically linked")
		}
	}
	return nil
}

// parseKernelPackage reads `apt-cache depends linux-image-amd64` and returns
// the versioned image package it depends on ("linux-image-6.1.0-56-amd64").
func parseKernelPackage(out string) (string, error) {
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 64*1024), 64*1024)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		// "  Depends: linux-image-6.1.0-56-amd64" (alternatives start with "|Depends:")
		if len(f) == 2 && strings.TrimPrefix(f[0], "|") == "Depends:" &&
			strings.HasPrefix(f[1], "linux-image-") && f[1] != "linux-image-amd64" &&
			!strings.ContainsAny(f[1], "<>/ ") && !strings.HasPrefix(f[1], "linux-image-amd64") {
			return f[1], nil
		}
	}
	return "", errors.New("no linux-image-* dependency in apt-cache output")
}

func run(ctx context.Context, dir string, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, strings.TrimSpace(lastLines(stderr.String(), 3)))
	}
	return out, nil
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}

// prepareKernel leaves cache/kernel/<package>/vmlinux. The package comes from
// Debian (apt-get download; dpkg-deb gives its files: only boot/vmlinuz-* is
// taken, the modules are not needed), the vmlinux from the bzImage's XZ payload.
func prepareKernel(ctx context.Context, a *Assets, o PrepareOptions) error {
	kdir := filepath.Join(o.CacheDir, "kernel")
	pkg, err := kernelPackage(ctx)
	if err != nil && os.Geteuid() == 0 && newestCachedKernel(kdir) == "" {
		// A fresh machine may have no package lists yet: fetch them once.
		fmt.Fprintf(o.Log, "lab: %v; running apt-get update\n", err)
		if _, uerr := run(ctx, "", "apt-get", "update", "-qq"); uerr == nil {
			pkg, err = kernelPackage(ctx)
		}
	}
	if err != nil {
		// Offline or no apt lists: a kernel cached earlier still serves.
		if cached := newestCachedKernel(kdir); cached != "" {
			fmt.Fprintf(o.Log, "lab: apt-cache cannot name the kernel (%v); using cached %s\n", err, cached)
			pkg = cached
		} else {
			return unavailable("cannot find the Debian kernel package (apt-cache depends linux-image-amd64: %v; run apt-get update)", err)
		}
	}
	a.KernelPackage = pkg
	a.Kernel, err = installKernel(ctx, kdir, pkg, nil, o.Log)
	return err
}

// installKernel leaves kdir/<package>/vmlinux, downloading the package with
// apt-get (aptOpts: a private configuration, see prepareOlderKernel) unless
// it is cached, and removes the other kernels cached in kdir.
func installKernel(ctx context.Context, kdir, pkg string, aptOpts []string, log io.Writer) (string, error) {
	dir := filepath.Join(kdir, pkg)
	vmlinuxPath := filepath.Join(dir, "vmlinux")
	if fi, err := os.Stat(vmlinuxPath); err == nil && fi.Size() > 0 {
		pruneKernels(kdir, pkg)
		return vmlinuxPath, nil
	}
	for _, tool := range []string{"apt-get", "dpkg-deb"} {
		if _, err := exec.LookPath(tool); err != nil {
			return "", unavailable("%s not found: the lab takes its kernel from the Debian package %s", tool, pkg)
		}
	}
	dl := filepath.Join(kdir, "download")
	if err := os.RemoveAll(dl); err != nil {
		return "", err
	}
	if err := os.MkdirAll(dl, 0o755); err != nil {
		return "", err
	}
	defer os.RemoveAll(dl)
	fmt.Fprintf(log, "lab: downloading %s (apt-get download)\n", pkg)
	if _, err := run(ctx, dl, "apt-get", append(append(aptOpts, "download", "-q"), pkg)...); err != nil {
		return "", unavailable("cannot download the kernel package %s: %v", pkg, err)
	}
	debs, _ := filepath.Glob(filepath.Join(dl, pkg+"_*.deb"))
	if len(debs) != 1 {
		return "", fmt.Errorf("apt-get download %s left %d .deb files in %s", pkg, len(debs), dl)
	}
	vmlinuz, err := extractVmlinuz(ctx, debs[0])
	if err != nil {
		return "", err
	}
	payload, err := xzPayload(vmlinuz)
	if err != nil {
		return "", fmt.Errorf("%s: %v", pkg, err)
	}
	vmlinux, err := unxz(ctx, payload)
	if err != nil {
		return "", fmt.Errorf("%s: decompressing the kernel: %v", pkg, err)
	}
	if !bytes.HasPrefix(vmlinux, []byte("\x7fELF")) {
		return "", fmt.Errorf("%s: the decompressed payload is not an ELF vmlinux", pkg)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "vmlinuz"), vmlinuz, 0o644); err != nil {
		return "", err
	}
	if err := writeAtomic(vmlinuxPath, vmlinux); err != nil {
		return "", err
	}
	pruneKernels(kdir, pkg)
	return vmlinuxPath, nil
}

// OlderKernels are the Debian releases whose kernel a scenario may boot
// instead of this machine's (Scenario.Kernel), with the apt source line
// their linux-image-amd64 comes from.
var OlderKernels = map[string]string{
	"bullseye": "deb http://deb.debian.org/debian bullseye main", // Debian 11: Linux 5.10
}

// olderKernel returns the vmlinux and package of an OlderKernels release,
// preparing it on first use (see prepareOlderKernel).
func (a *Assets) olderKernel(ctx context.Context, release string) (string, string, error) {
	if k, ok := a.older[release]; ok {
		return k[0], k[1], nil
	}
	path, pkg, err := prepareOlderKernel(ctx, a.CacheDir, release, a.log)
	if err != nil {
		return "", "", err
	}
	if a.older == nil {
		a.older = map[string][2]string{}
	}
	a.older[release] = [2]string{path, pkg}
	return path, pkg, nil
}

// prepareOlderKernel leaves cache/kernel-<release>/<package>/vmlinux. apt
// runs with a private configuration under cache/kernel-<release>/apt (its
// own sources list naming only that release, package lists and archives):
// this machine's apt sources and lists are never read or changed. The lists
// are fetched once (apt-get update), then the cached kernel serves, also
// offline.
func prepareOlderKernel(ctx context.Context, cacheDir, release string, log io.Writer) (string, string, error) {
	line, ok := OlderKernels[release]
	if !ok {
		return "", "", fmt.Errorf("no older kernel %q (known: bullseye)", release)
	}
	kdir := filepath.Join(cacheDir, "kernel-"+release)
	apt := filepath.Join(kdir, "apt")
	for _, d := range []string{"lists/partial", "cache/archives/partial", "parts"} {
		if err := os.MkdirAll(filepath.Join(apt, d), 0o755); err != nil {
			return "", "", err
		}
	}
	if err := os.WriteFile(filepath.Join(apt, "sources.list"), []byte(line+"\n"), 0o644); err != nil {
		return "", "", err
	}
	opts := []string{"-o", "Dir::Etc::SourceList=" + filepath.Join(apt, "sources.list"), "-o", "Dir::Etc::SourceParts=" + filepath.Join(apt, "parts"),
		"-o", "Dir::State::Lists=" + filepath.Join(apt, "lists"), "-o", "Dir::Cache=" + filepath.Join(apt, "cache")}
	depends := func() (string, error) {
		out, err := run(ctx, "", "apt-cache", append(opts, "depends", "linux-image-amd64")...)
		if err != nil {
			return "", err
		}
		return parseKernelPackage(string(out))
	}
	pkg, err := depends()
	if err != nil && newestCachedKernel(kdir) == "" {
		fmt.Fprintf(log, "lab: fetching Debian %s's package lists (private apt configuration in %s)\n", release, apt)
		if _, uerr := run(ctx, "", "apt-get", append(opts, "update", "-qq")...); uerr != nil {
			err = uerr
		} else {
			pkg, err = depends()
		}
	}
	if err != nil {
		if cached := newestCachedKernel(kdir); cached != "" {
			pkg = cached
		} else {
			return "", "", unavailable("cannot find Debian %s's kernel package: %v", release, err)
		}
	}
	path, err := installKernel(ctx, kdir, pkg, opts, log)
	return path, pkg, err
}

func kernelPackage(ctx context.Context) (string, error) {
	out, err := run(ctx, "", "apt-cache", "depends", "linux-image-amd64")
	if err != nil {
		return "", err
	}
	return parseKernelPackage(string(out))
}

// pruneKernels removes cached kernels other than keep (a new Debian kernel
// ABI gets a new directory; about 75 MB each).
func pruneKernels(kdir, keep string) {
	m, _ := filepath.Glob(filepath.Join(kdir, "linux-image-*"))
	for _, d := range m {
		if filepath.Base(d) != keep {
			os.RemoveAll(d)
		}
	}
}

func newestCachedKernel(kdir string) string {
	m, _ := filepath.Glob(filepath.Join(kdir, "linux-image-*", "vmlinux"))
	sort.Strings(m)
	if len(m) == 0 {
		return ""
	}
	return filepath.Base(filepath.Dir(m[len(m)-1]))
}

func writeAtomic(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// extractVmlinuz pulls ./boot/vmlinuz-* out of a .deb (dpkg-deb --fsys-tarfile).
func extractVmlinuz(ctx context.Context, deb string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "dpkg-deb", "--fsys-tarfile", deb)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	var found []byte
	tr := tar.NewReader(stdout)
	for {
		h, err := tr.Next()
		if err != nil {
			break
		}
		name := strings.TrimPrefix(h.Name, "./")
		if strings.HasPrefix(name, "boot/vmlinuz-") && h.Typeflag == tar.TypeReg && found == nil {
			if found, err = io.ReadAll(io.LimitReader(tr, 256<<20)); err != nil {
				break
			}
		}
	}
	io.Copy(io.Discard, stdout)
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("dpkg-deb --fsys-tarfile %s: %v", deb, err)
	}
	if found == nil {
		return nil, fmt.Errorf("%s has no boot/vmlinuz-*", deb)
	}
	return found, nil
}

var xzMagic = []byte{0xFD, '7', 'z', 'X', 'Z', 0x00}

// xzPayload returns the XZ-compressed kernel inside a bzImage. It uses the
// boot protocol's payload_offset/payload_length (setup header, protocol ≥
// 2.08) and falls back to the first XZ magic in the file.
func xzPayload(b []byte) ([]byte, error) {
	const (
		setupSectsOff = 0x1f1
		hdrMagicOff   = 0x202
		versionOff    = 0x206
		payloadOffOff = 0x248
		payloadLenOff = 0x24c
	)
	if len(b) >= payloadLenOff+4 && string(b[hdrMagicOff:hdrMagicOff+4]) == "HdrS" &&
		binary.LittleEndian.Uint16(b[versionOff:]) >= 0x208 {
		sects := int(b[setupSectsOff])
		if sects == 0 {
			sects = 4
		}
		start := uint64(sects+1)*512 + uint64(binary.LittleEndian.Uint32(b[payloadOffOff:]))
		end := start + uint64(binary.LittleEndian.Uint32(b[payloadLenOff:]))
		if end <= uint64(len(b)) && start < end && bytes.HasPrefix(b[start:end], xzMagic) {
			return b[start:end], nil
		}
	}
	if i := bytes.Index(b, xzMagic); i >= 0 {
		return b[i:], nil
	}
	return nil, errors.New("no XZ payload in the kernel image (not an XZ-compressed bzImage)")
}

// unxz decompresses one XZ stream (trailing bytes, such as the 4-byte size
// the kernel build appends, are ignored) with xz, or busybox's xz.
func unxz(ctx context.Context, in []byte) ([]byte, error) {
	name, args := "xz", []string{"-dc", "--single-stream"}
	if _, err := exec.LookPath("xz"); err != nil {
		name, args = "busybox", []string{"xz", "-dc"}
	}
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil && !(name == "busybox" && bytes.HasPrefix(out, []byte("\x7fELF"))) {
		return nil, fmt.Errorf("%s: %v: %s", name, err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// prepareInitramfs builds ./cmd/dbhost statically and, when that build is
// new, the base initramfs cache/initramfs-<sha>.cpio.gz (older ones removed).
// The build has -tags testhooks: the crash scenarios kill it at each journal
// step (DBHOST_TEST_KILL_AT), a hook a plain build does not have.
func prepareInitramfs(ctx context.Context, a *Assets, o PrepareOptions) error {
	bin := filepath.Join(o.CacheDir, "dbhost")
	args := []string{"build", "-trimpath", "-tags", "testhooks", "-ldflags=-s -w", "-o", bin}
	if o.CoverMode != "" {
		args = append(args, "-cover", "-covermode="+o.CoverMode, "-coverpkg=github.com/dbhost/dbhost/...")
	}
	cmd := exec.CommandContext(ctx, "go", append(args, "./cmd/dbhost")...)
	cmd.Dir = o.RepoDir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building a static dbhost: %v\n%s", err, out)
	}
	dbhost, err := os.ReadFile(bin)
	if err != nil {
		return err
	}
	busybox, err := os.ReadFile(o.Busybox)
	if err != nil {
		return err
	}
	h := sha256.New()
	h.Write(dbhost)
	h.Write(busybox)
	h.Write([]byte(initScript))
	sum := hex.EncodeToString(h.Sum(nil))[:12]
	d := sha256.Sum256(dbhost)
	a.DBHostSHA = hex.EncodeToString(d[:])[:12]
	a.Initramfs = filepath.Join(o.CacheDir, "initramfs-"+sum+".cpio.gz")
	if _, err := os.Stat(a.Initramfs); err == nil {
		return nil
	}
	out, err := run(ctx, "", o.Busybox, "--list")
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := writeCpioGz(&buf, baseInitramfs(busybox, dbhost, strings.Fields(string(out)))); err != nil {
		return err
	}
	old, _ := filepath.Glob(filepath.Join(o.CacheDir, "initramfs-*.cpio.gz"))
	for _, f := range old {
		os.Remove(f)
	}
	fmt.Fprintf(o.Log, "lab: built %s (%d kB)\n", filepath.Base(a.Initramfs), buf.Len()>>10)
	return writeAtomic(a.Initramfs, buf.Bytes())
}
