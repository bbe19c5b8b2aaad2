package health

import (
	"errors"
	"sync/atomic"
)

// Probes holds the live and ready checks of a process whose checks change
// as it starts. The probes are served from the first moment, before
// anything waits on a broker, so that an orchestrator sees a process that is
// alive but not ready (with the reason) rather than a closed port: a closed
// liveness port during a broker outage gets the pod restarted, which makes
// the outage worse. Set swaps in the running process's checks.
type Probes struct {
	live, ready atomic.Pointer[Check]
}

// Starting returns Probes that report alive and not ready, saying why:
// waiting is the sentence /readyz answers with until Set is called (or
// until Waiting changes it).
func Starting(waiting string) *Probes {
	p := &Probes{}
	p.Waiting(waiting)
	return p
}

// Waiting keeps the process alive and not ready, with why as /readyz's
// answer (for example the last error while waiting for brokers).
func (p *Probes) Waiting(why string) {
	alive := Check(func() error { return nil })
	notReady := Check(func() error { return errors.New(why) })
	p.live.Store(&alive)
	p.ready.Store(&notReady)
}

// Set replaces both checks.
func (p *Probes) Set(live, ready Check) {
	p.live.Store(&live)
	p.ready.Store(&ready)
}

// Live is the current liveness check.
func (p *Probes) Live() error { return (*p.live.Load())() }

// Ready is the current readiness check.
func (p *Probes) Ready() error { return (*p.ready.Load())() }
