package confine

import (
	"io/fs"
	"path"
)

// Fault is the filesystem fault seam (nil in production: dbhost never sets
// it). The durable-write steps of this package — WriteFileAtomic's create,
// write, fsync, rename and directory fsync, RemoveDurably's remove — and of
// apply's journal ask it before each step, with the step's name and the
// file's host path (a Dir's steps: the Dir's own path joined with the
// file's, so that a test can tell the trees of parallel runs apart);
// a non-nil error (ENOSPC, EIO, EACCES ...) becomes that step's failure and
// the step is not done. The fault tests of internal/apply inject errors at
// every step this way and check that rollback restores every value or
// names each one it could not.
var Fault func(op, path string) error

// CheckFault returns Fault's error for the step op on path, as a
// *fs.PathError, or nil.
func CheckFault(op, path string) error {
	if Fault == nil {
		return nil
	}
	if err := Fault(op, path); err != nil {
		return &fs.PathError{Op: op, Path: path, Err: err}
	}
	return nil
}

// checkFault is CheckFault for a file of d: Fault sees d's path joined with
// p; the error names p, as d's other errors do.
func (d *Dir) checkFault(op, p string) error {
	if Fault == nil {
		return nil
	}
	if err := Fault(op, path.Join(d.name, rel(p))); err != nil {
		return &fs.PathError{Op: op, Path: p, Err: err}
	}
	return nil
}
