package bench

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/dbhost/dbhost/internal/crash"
)

// Progress draws one line on a terminal: what runs, a bar of the time
// spent against the time planned, and the time left. Quiet when nil (not
// a TTY, or --format json piped somewhere).
type Progress struct {
	mu    sync.Mutex
	w     io.Writer
	total time.Duration
	done  time.Duration
	start time.Time // of the current step
	step  time.Duration
	label string
	stop  chan struct{}
	wg    sync.WaitGroup
}

// NewProgress draws on w (a terminal) for a run planned to take total.
func NewProgress(w io.Writer, total time.Duration) *Progress {
	p := &Progress{w: w, total: total, stop: make(chan struct{})}
	p.wg.Add(1)
	crash.Go(func() {
		defer p.wg.Done()
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.draw()
			}
		}
	})
	return p
}

// Step starts a part of the run expected to take d.
func (p *Progress) Step(label string, d time.Duration) {
	if p == nil {
		return
	}
	p.mu.Lock()
	if !p.start.IsZero() {
		p.done += p.step
	}
	p.label, p.step, p.start = label, d, time.Now()
	p.mu.Unlock()
	p.draw()
}

func (p *Progress) draw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.start.IsZero() {
		return
	}
	el := min(time.Since(p.start), p.step)
	done := p.done + el
	frac := 1.0
	if p.total > 0 {
		frac = min(float64(done)/float64(p.total), 1)
	}
	const width = 30
	n := int(frac * width)
	left := max(p.total-done, 0).Round(time.Second)
	fmt.Fprintf(p.w, "\r[%s%s] %3.0f%% %-32.32s %v left ", strings.Repeat("#", n), strings.Repeat(".", width-n), 100*frac, p.label, left)
}

// Done clears the line.
func (p *Progress) Done() {
	if p == nil {
		return
	}
	close(p.stop)
	p.wg.Wait()
	fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", 80))
}
