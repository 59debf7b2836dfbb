package apply

import (
	"fmt"
	"sync"
	"testing"
)

// stepWorkers is how many crash or fault runs go at a time: they wait on
// fsync and on subprocesses more than they compute, so a few at once use a
// loaded machine's two cores instead of idling on the disk.
const stepWorkers = 4

// atEveryStep runs check(t, n) as the subtest "stepN" for n = 1, 1+stride,
// 1+2·stride …, stepWorkers at a time, until a run reports that n was past
// the last step (check returns true). Every n below that one runs; a few
// past it may run too, and must pass as well. It returns the smallest n
// that was past the last step.
func atEveryStep(t *testing.T, stride int, check func(t *testing.T, n int) (past bool)) int {
	t.Helper()
	const limit = 100000
	var mu sync.Mutex
	pastAt, next := 0, 1
	var wg sync.WaitGroup
	for range stepWorkers {
		wg.Go(func() {
			for {
				mu.Lock()
				if (pastAt != 0 && next > pastAt) || next > limit || t.Failed() {
					mu.Unlock()
					return
				}
				n := next
				next += stride
				mu.Unlock()
				past := false
				t.Run(fmt.Sprintf("step%d", n), func(t *testing.T) { past = check(t, n) })
				if past {
					mu.Lock()
					if pastAt == 0 || n < pastAt {
						pastAt = n
					}
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if pastAt == 0 && !t.Failed() {
		t.Fatalf("no run went past the last step (up to step %d)", limit)
	}
	return pastAt
}
