package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dbhost/dbhost/internal/crash"
)

// RunIO writes the job file, runs fio once per repeat and reports every
// role's figures exactly as fio's JSON gives them (for --repeat N, each
// repeat is a sample and the row is the repeat with the median IOPS).
func RunIO(ctx context.Context, o IOOptions) (*Result, error) {
	fio, err := exec.LookPath("fio")
	if err != nil {
		return nil, fmt.Errorf("fio not found: install it (Debian/RHEL package fio)")
	}
	res := NewResult("io", o.Options)
	cpus := o.CPUs
	if cpus <= 0 {
		cpus = o.cpuCount(runtime.NumCPU())
	}
	size := int64(o.SizeMB) << 20
	scratch, scratchID, err := o.Registry.ScratchDir("")
	if err != nil {
		return nil, err
	}
	defer func() {
		if os.RemoveAll(scratch) == nil {
			_ = o.Registry.Done(scratchID)
		}
	}()
	var target string
	switch {
	case o.Device != "" && o.File != "":
		return nil, fmt.Errorf("--device and --file: give one")
	case o.Device != "":
		if err := CheckDevice(o.Device); err != nil {
			return nil, err
		}
		writes := len(o.Roles) == 0
		for _, r := range o.Roles {
			writes = writes || r == "writers" || r == "redolog"
		}
		if writes && !o.DestroyOK {
			return nil, fmt.Errorf("--device %s: the writers and redolog roles overwrite its data: pass --destroy-data, or --role readers,parallel_query to only read", o.Device)
		}
		target = o.Device
		if size == 0 {
			size = 1 << 30
		}
		res.Params["device"] = o.Device
	case o.File != "":
		abs, err := filepath.Abs(o.File)
		if err != nil {
			return nil, err
		}
		if st, err := os.Stat(abs); err == nil && !st.Mode().IsRegular() {
			return nil, fmt.Errorf("--file %s: not a regular file (use --device for a block device)", o.File)
		}
		target = abs
		res.Params["file"] = abs
	default:
		dir := o.Dir
		if dir == "" {
			dir = "/var/tmp"
		}
		d, id, err := o.Registry.ScratchDir(dir)
		if err != nil {
			return nil, fmt.Errorf("--dir %s: %w", dir, err)
		}
		defer func() {
			if os.RemoveAll(d) == nil {
				_ = o.Registry.Done(id)
			}
		}()
		target = filepath.Join(d, "data")
		res.Params["file"] = target + " (scratch, removed at the end)"
	}
	if size == 0 {
		size = 256 << 20
	}
	ramp := o.Ramp
	job, err := IOJobFile(target, size, o.Duration, ramp, o.Roles, cpus, o.Scale)
	if err != nil {
		return nil, err
	}
	jobPath := filepath.Join(scratch, "oracle_profile.fio")
	if err := os.WriteFile(jobPath, []byte(job), 0o600); err != nil {
		return nil, err
	}
	res.Params["size_mb"] = size >> 20
	res.Params["ramp"] = ramp.String()
	res.Params["job_file"] = job
	byCase := map[string][]FioRow{}
	var order []string
	for rep := 1; rep <= o.repeat(); rep++ {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		o.Progress.Step(fmt.Sprintf("fio run %d", rep), o.Duration+ramp)
		out := filepath.Join(scratch, fmt.Sprintf("fio-%d.json", rep))
		// fio gets its runtime, the ramp and 2 minutes to lay the file out
		// and end; past that it is killed, and said so.
		grace := o.Grace
		if grace <= 0 {
			grace = 2 * time.Minute
		}
		limit := o.Duration + ramp + grace
		cctx, cancel := context.WithTimeout(ctx, limit)
		err := runChild(cctx, o.Registry, o.Bind, fio, "--output-format=json", "--output="+out, jobPath)
		cancel()
		if err != nil {
			if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
				return res, fmt.Errorf("fio did not end within %v (runtime %v): killed", limit, o.Duration)
			}
			return res, err
		}
		data, err := os.ReadFile(out)
		if err != nil {
			return res, err
		}
		if o.KeepFioOut != "" {
			name := o.KeepFioOut
			if o.repeat() > 1 {
				name = fmt.Sprintf("%s.%d", o.KeepFioOut, rep)
			}
			if err := os.WriteFile(name, data, 0o644); err != nil {
				return res, fmt.Errorf("--fio-json %s: %w", name, err)
			}
		}
		ver, rows, err := ParseFioJSON(data)
		if err != nil {
			return res, err
		}
		res.Params["fio_version"] = ver
		for _, r := range rows {
			if _, ok := byCase[r.Row.Case]; !ok {
				order = append(order, r.Row.Case)
			}
			r.Sample.Repeat = rep
			byCase[r.Row.Case] = append(byCase[r.Row.Case], r)
			res.Samples = append(res.Samples, r.Sample)
		}
	}
	for _, c := range order {
		rs := byCase[c]
		sort.SliceStable(rs, func(i, j int) bool { return *rs[i].Row.OpsPerSec < *rs[j].Row.OpsPerSec })
		row := rs[(len(rs)-1)/2].Row
		if len(rs) > 1 {
			row.Note = fmt.Sprintf("the repeat with the median IOPS of %d", len(rs))
		}
		res.Results = append(res.Results, row)
	}
	res.Note("figures are fio's own (clat percentiles, bw_bytes, iops from its JSON), per role; job file in params.job_file; seed 000 ran 480 readers, 32 writers, 8 parallel query and 1 redo writer on 120 cores for 30 s after a 15 s ramp")
	if o.Bind != nil {
		res.Params["binding"] = o.Bind.Params("fio and the job processes it forks (inherited from the thread that starts it)")
	}
	res.Finish()
	return res, nil
}

// runChild runs a command to completion, recorded in the registry (so a
// killed bench's child is killed by the next run), killed with the bench
// (SIGKILL on ctx, and Pdeathsig where the OS has it). With a binding the
// child starts bound: it inherits the CPUs and memory policy of the thread
// that starts it.
func runChild(ctx context.Context, reg *Registry, bind *Binding, name string, args ...string) error {
	return runChildTo(ctx, reg, bind, nil, name, args...)
}

// runChildTo is runChild that also copies the child's output to out.
func runChildTo(ctx context.Context, reg *Registry, bind *Binding, out io.Writer, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	setPdeathsig(cmd)
	cmd.WaitDelay = 5 * time.Second // a grandchild holding the pipes does not hold Wait
	var stderr strings.Builder
	var w io.Writer = &stderr
	if out != nil {
		w = io.MultiWriter(&stderr, out)
	}
	cmd.Stderr = w
	cmd.Stdout = w
	id, err := reg.Add(KindProcess, "", "")
	if err != nil {
		return err
	}
	// One goroutine starts and waits: bound, it is locked to a bound thread
	// that lives as long as the child (the Pdeathsig is the starting
	// thread's: the thread must not end before the child does).
	started := make(chan error, 1)
	done := make(chan error, 1)
	crash.Go(func() {
		if bind != nil {
			if err := pinThread(bind.CPUs, bind.MemNodes); err != nil {
				started <- err
				return
			}
		}
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		done <- cmd.Wait()
	})
	if err := <-started; err != nil {
		_ = reg.Done(id)
		return fmt.Errorf("%s: %w", name, err)
	}
	_ = reg.Update(id, strconv.Itoa(cmd.Process.Pid), procStart(cmd.Process.Pid))
	if bind != nil {
		bind.observe(cmd.Process.Pid)
	}
	select {
	case err = <-done:
	case <-ctx.Done():
		killGroup(cmd)
		<-done
		err = ctx.Err()
	}
	_ = reg.Done(id)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 2000 {
			msg = msg[len(msg)-2000:]
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return fmt.Errorf("%s exited with %d: %s", filepath.Base(name), ee.ExitCode(), msg)
		}
		return fmt.Errorf("%s: %v: %s", filepath.Base(name), err, msg)
	}
	return nil
}

// runChildOutput is runChild returning the child's standard output and
// error (pgbench prints its summary there).
func runChildOutput(ctx context.Context, reg *Registry, bind *Binding, name string, args ...string) (string, error) {
	var out strings.Builder
	err := runChildTo(ctx, reg, bind, &out, name, args...)
	return out.String(), err
}
