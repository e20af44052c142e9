package resources

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// Sampler takes a Sample every interval until Stop, writing each as a CSV
// line as it is taken: a run killed halfway still leaves its samples.
type Sampler struct {
	w        io.Writer
	every    time.Duration
	children func() []int
	start    time.Time

	mu      sync.Mutex
	samples []Sample
	err     error
	stop    chan struct{}
	done    chan struct{}
}

// Start writes Header to w, takes the first sample at once and one every
// interval after. children, when set, names the processes to sample too
// (asked anew each time: a restarted tier has a new pid).
func Start(w io.Writer, every time.Duration, children func() []int) *Sampler {
	s := &Sampler{w: w, every: every, children: children, start: time.Now(), stop: make(chan struct{}), done: make(chan struct{})}
	s.write(Header)
	s.take()
	go s.loop()
	return s
}

func (s *Sampler) loop() {
	defer close(s.done)
	tick := time.NewTicker(s.every)
	defer tick.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-tick.C:
			s.take()
		}
	}
}

func (s *Sampler) take() {
	var pids []int
	if s.children != nil {
		pids = s.children()
	}
	smp := Take(time.Since(s.start), pids)
	s.mu.Lock()
	s.samples = append(s.samples, smp)
	s.mu.Unlock()
	s.write(smp.CSV())
}

func (s *Sampler) write(line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return
	}
	if _, err := fmt.Fprintln(s.w, line); err != nil {
		s.err = err
	}
}

// Stop takes a last sample and returns every sample taken and the first
// write error.
func (s *Sampler) Stop() ([]Sample, error) {
	close(s.stop)
	<-s.done
	s.take()
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Sample(nil), s.samples...), s.err
}
