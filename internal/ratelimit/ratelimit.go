// Package ratelimit holds back the jobs of a tenant that is over its
// admission rate, jobs per second and record bytes per second (token buckets
// of golang.org/x/time/rate), and lets them go in arrival order once the
// rate allows, while every other tenant's jobs pass at once. A job over the
// rate waits; it is never refused.
//
// Each bucket holds one second's worth of its rate (at least one job or one
// byte). A job larger than the byte bucket is charged in full, in bucket-sized
// reservations, so it waits until the tenant's bytes per second cover it.
//
// Each job names the group it came from (its partition); Revoke releases
// the waiting jobs of groups taken away, so a job whose partition moved to
// another worker is never started here.
//
// May import: no package of this module.
package ratelimit

import (
	"context"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Rates is one tenant's admission rate; 0 (or less) is unlimited.
type Rates struct {
	JobsPerSecond  float64
	BytesPerSecond float64
}

func (r Rates) unlimited() bool { return r.JobsPerSecond <= 0 && r.BytesPerSecond <= 0 }

// Config sets up a Limiter.
type Config struct {
	// RatesFor returns a tenant's rates; it is asked on every Admit.
	RatesFor func(tenant string) Rates
	// MaxWaiting caps the jobs of one tenant waiting at once (at least 1).
	MaxWaiting int
	// OnWaiting, when set, is told the number of jobs waiting (every
	// tenant) each time it changes.
	OnWaiting func(waiting int)
	// OnWaited, when set, is told how long each job that waited did.
	OnWaited func(time.Duration)
}

// forgetAfter is the tenant count above which Admit forgets idle tenants
// whose buckets are full again (forgetting such a tenant changes nothing).
const forgetAfter = 1024

// Limiter admits jobs per tenant. It is safe for concurrent use.
type Limiter struct {
	cfg Config
	ctx context.Context // ends every wait; waiting jobs are then cancelled

	mu       sync.Mutex
	tenants  map[string]*tenant
	waiting  int
	closed   error      // set by Close: Admit refuses with it
	starting int        // jobs taken off a queue whose start has not returned
	started  *sync.Cond // on mu: broadcast when starting drops
}

// tenant is the buckets and the waiting jobs of one limited tenant.
type tenant struct {
	jobs, bytes *rate.Limiter // nil: that rate is unlimited
	queue       []*item
	draining    bool          // a goroutine is releasing queue
	room        chan struct{} // closed and replaced when a job leaves queue
	fullAt      time.Time     // when both buckets are full again
}

// item is one waiting job.
type item struct {
	readyAt, queuedAt time.Time
	group             string
	start             func()
	cancel            func(error)
}

// New returns a Limiter whose waits end, cancelling the jobs still waiting,
// when ctx ends.
func New(ctx context.Context, cfg Config) *Limiter {
	cfg.MaxWaiting = max(cfg.MaxWaiting, 1)
	l := &Limiter{cfg: cfg, ctx: ctx, tenants: map[string]*tenant{}}
	l.started = sync.NewCond(&l.mu)
	return l
}

// Admit lets one job of tenant, of n record bytes, from group (its
// partition, for Revoke), go. start runs before
// Admit returns when the tenant is within its rates (and no earlier job of
// it waits); otherwise the job waits and start runs later, after every
// earlier job of the tenant, once the rates allow. If the limiter's context
// ends first, cancel runs instead, with its error. Admit itself blocks only
// while MaxWaiting jobs of the tenant already wait, until one leaves or ctx
// ends; it then returns the context's error and runs neither func.
func (l *Limiter) Admit(ctx context.Context, name, group string, n int64, start func(), cancel func(error)) error {
	rates := l.cfg.RatesFor(name)
	if rates.unlimited() {
		start()
		return nil
	}
	for {
		if err := l.ctx.Err(); err != nil {
			return err
		}
		l.mu.Lock()
		if l.closed != nil {
			l.mu.Unlock()
			return l.closed
		}
		t := l.tenant(name, rates)
		if len(t.queue) >= l.cfg.MaxWaiting {
			room := t.room
			l.mu.Unlock()
			select {
			case <-room:
				continue
			case <-ctx.Done():
				return ctx.Err()
			case <-l.ctx.Done():
				return l.ctx.Err()
			}
		}
		now := time.Now()
		readyAt := t.reserve(now, n)
		if len(t.queue) == 0 && !readyAt.After(now) {
			l.mu.Unlock()
			start()
			return nil
		}
		t.queue = append(t.queue, &item{readyAt: readyAt, queuedAt: now, group: group, start: start, cancel: cancel})
		l.setWaiting(l.waiting + 1)
		if !t.draining {
			t.draining = true
			go l.drain(t)
		}
		l.mu.Unlock()
		return nil
	}
}

// tenant returns the state of a limited tenant, creating it; the caller
// holds l.mu.
func (l *Limiter) tenant(name string, rates Rates) *tenant {
	if t, ok := l.tenants[name]; ok {
		return t
	}
	if len(l.tenants) >= forgetAfter {
		now := time.Now()
		for other, t := range l.tenants {
			if !t.draining && len(t.queue) == 0 && now.After(t.fullAt) {
				delete(l.tenants, other)
			}
		}
	}
	t := &tenant{jobs: bucket(rates.JobsPerSecond), bytes: bucket(rates.BytesPerSecond), room: make(chan struct{})}
	l.tenants[name] = t
	return t
}

// bucket is a token bucket of perSecond holding one second's worth, or nil
// for an unlimited rate.
func bucket(perSecond float64) *rate.Limiter {
	if perSecond <= 0 {
		return nil
	}
	return rate.NewLimiter(rate.Limit(perSecond), int(max(1, math.Ceil(perSecond))))
}

// reserve takes one job and n bytes from the buckets and returns when they
// are available; the caller holds the lock. Reservations are in call order,
// so the times of one tenant's jobs never go backwards.
func (t *tenant) reserve(now time.Time, n int64) time.Time {
	at := now
	if t.jobs != nil {
		at = later(at, take(t.jobs, now, 1))
	}
	if t.bytes != nil {
		at = later(at, take(t.bytes, now, max(n, 1)))
	}
	t.fullAt = later(t.fullAt, at.Add(time.Duration(float64(time.Second)*refill(t.jobs))), at.Add(time.Duration(float64(time.Second)*refill(t.bytes))))
	return at
}

// take reserves n tokens of b in bucket-sized parts and returns when the last
// part is available.
func take(b *rate.Limiter, now time.Time, n int64) time.Time {
	at := now
	for burst := int64(b.Burst()); n > 0; n -= burst {
		r := b.ReserveN(now, int(min(n, burst)))
		at = later(at, now.Add(r.DelayFrom(now)))
	}
	return at
}

// refill is the seconds an empty b takes to fill.
func refill(b *rate.Limiter) float64 {
	if b == nil {
		return 0
	}
	return float64(b.Burst()) / float64(b.Limit())
}

func later(t time.Time, others ...time.Time) time.Time {
	for _, o := range others {
		if o.After(t) {
			t = o
		}
	}
	return t
}

// drain starts t's waiting jobs in order, each at its time, until the queue
// is empty; when the limiter's context ends it cancels them all.
func (l *Limiter) drain(t *tenant) {
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		l.mu.Lock()
		if len(t.queue) == 0 {
			t.draining = false
			l.mu.Unlock()
			return
		}
		it := t.queue[0]
		l.mu.Unlock()
		timer.Reset(time.Until(it.readyAt))
		select {
		case <-timer.C:
		case <-l.ctx.Done():
			l.mu.Lock()
			queue := l.takeQueue(t)
			t.draining = false
			l.mu.Unlock()
			cancel(queue, l.ctx.Err())
			return
		}
		l.mu.Lock()
		if len(t.queue) == 0 || t.queue[0] != it { // Close took it
			l.mu.Unlock()
			continue
		}
		t.queue = t.queue[1:]
		l.setWaiting(l.waiting - 1)
		close(t.room)
		t.room = make(chan struct{})
		l.starting++
		l.mu.Unlock()
		if l.cfg.OnWaited != nil {
			l.cfg.OnWaited(time.Since(it.queuedAt))
		}
		it.start()
		l.mu.Lock()
		l.starting--
		l.started.Broadcast()
		l.mu.Unlock()
	}
}

// Close cancels every job waiting, with err, and makes Admit refuse with
// err from now on (a worker that stops reading does not wait for rates).
func (l *Limiter) Close(err error) {
	l.mu.Lock()
	l.closed = err
	var queue []*item
	for _, t := range l.tenants {
		queue = append(queue, l.takeQueue(t)...)
	}
	l.mu.Unlock()
	cancel(queue, err)
}

// Revoke releases every waiting job of a group revoked reports true for:
// its cancel runs with err and its start never does. Revoke returns once no
// job taken off a queue before it is still being started, so a caller that
// drops the started jobs of those groups next misses none. The released
// jobs' reservations are not given back: the tenant's later jobs keep
// their times. It returns how many jobs it released.
func (l *Limiter) Revoke(revoked func(group string) bool, err error) int {
	l.mu.Lock()
	var out []*item
	for _, t := range l.tenants {
		kept := t.queue[:0:0]
		for _, it := range t.queue {
			if revoked(it.group) {
				out = append(out, it)
			} else {
				kept = append(kept, it)
			}
		}
		if len(kept) == len(t.queue) {
			continue
		}
		t.queue = kept
		close(t.room)
		t.room = make(chan struct{})
	}
	l.setWaiting(l.waiting - len(out))
	for l.starting > 0 {
		l.started.Wait()
	}
	l.mu.Unlock()
	cancel(out, err)
	return len(out)
}

// takeQueue empties t's queue and returns what it held; the caller holds
// l.mu. t's drain goroutine, if any, finds the queue empty and ends.
func (l *Limiter) takeQueue(t *tenant) []*item {
	queue := t.queue
	t.queue = nil
	l.setWaiting(l.waiting - len(queue))
	close(t.room)
	t.room = make(chan struct{})
	return queue
}

func cancel(queue []*item, err error) {
	for _, it := range queue {
		it.cancel(err)
	}
}

// setWaiting records the waiting count; the caller holds l.mu.
func (l *Limiter) setWaiting(n int) {
	l.waiting = n
	if l.cfg.OnWaiting != nil {
		l.cfg.OnWaiting(n)
	}
}

// Waiting returns the number of jobs waiting now, every tenant together.
func (l *Limiter) Waiting() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.waiting
}
