package input

import "bytes"

// Capped keeps the first Max bytes written to it and counts them all: a
// command's output (a virsh answer, an AIX command's) read within a bound.
// It never fails a write, so the command is not stopped half-way by a
// broken pipe; Over says that more was printed than was kept.
type Capped struct {
	Buf bytes.Buffer
	Max int64
	N   int64 // bytes written, kept or not
}

func (w *Capped) Write(p []byte) (int, error) {
	if room := w.Max - int64(w.Buf.Len()); room > 0 {
		w.Buf.Write(p[:min(int64(len(p)), room)])
	}
	w.N += int64(len(p))
	return len(p), nil
}

// WriteString writes s (a note appended to a command's output).
func (w *Capped) WriteString(s string) { w.Write([]byte(s)) }

// Over reports whether more than Max bytes were written.
func (w *Capped) Over() bool { return w.N > w.Max }
