package pipeline

import (
	"errors"
	"strconv"
	"time"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/ratelimit"
	"github.com/hygiene-dev/hygiene/internal/transport"
)

// tenantRates resolves each tenant's admission rates from cfg once
// (rate_limits, then tenants.NAME.rate_limits), as ResolverFor does the
// per-job sections; the limiter asks on every Admit, and a tenant without
// an override gets the global rates.
func tenantRates(cfg config.Config) func(string) ratelimit.Rates {
	ratesOf := func(rl config.RateLimitsConfig) ratelimit.Rates {
		return ratelimit.Rates{JobsPerSecond: rl.JobsPerSecond, BytesPerSecond: rl.BytesPerSecond}
	}
	global := ratesOf(cfg.RateLimits)
	tenants := make(map[string]ratelimit.Rates, len(cfg.Tenants))
	for name := range cfg.Tenants {
		tenants[name] = ratesOf(cfg.RateLimitsFor(name))
	}
	return func(tenant string) ratelimit.Rates {
		if r, ok := tenants[tenant]; ok {
			return r
		}
		return global
	}
}

// newLimiter is the runner's per-tenant rate limiter, or nil when no rates
// are configured. Its waits end with the work context, so a job still
// waiting when the drain times out is acknowledged with the error and
// delivered again.
func (r *Runner) newLimiter() *ratelimit.Limiter {
	if r.cfg.TenantRates == nil {
		return nil
	}
	m := r.deps.Metrics
	return ratelimit.New(r.work, ratelimit.Config{
		RatesFor:   r.cfg.TenantRates,
		MaxWaiting: r.cfg.MaxWaitingPerTenant,
		OnWaiting:  func(n int) { m.RateLimitWaiting.Set(float64(n)) },
		OnWaited: func(d time.Duration) {
			m.RateLimitDelayed.Inc()
			m.RateLimitWaitSeconds.Add(d.Seconds())
		},
	})
}

// errRateReleased acknowledges a job that was still waiting for its
// tenant's rate when the worker stopped reading: it is delivered again.
var errRateReleased = errors.New("pipeline: the worker stopped while the job waited for its tenant's rate; released for redelivery")

// releaseWaiting gives back, at once, the jobs waiting for their tenant's
// rate when reading stopped for a shutdown (waiting out a rate would only
// use up the shutdown window); at the end of a finite input they run.
func (r *Runner) releaseWaiting(readErr error) {
	if r.lim != nil && !errors.Is(readErr, transport.ErrEndOfInput) {
		r.lim.Close(errRateReleased)
	}
}

// rateGroup names a job's partition to the rate limiter, for revokeWaiting.
func rateGroup(p transport.Partition) string { return p.Topic + "/" + strconv.Itoa(p.Partition) }

// revokeWaiting releases the jobs of parts still waiting for their tenant's
// rate (acknowledged with transport.ErrRevoked, never processed: their
// partition's new owner reads them). It runs before the scheduler drops the
// revoked partitions' queued jobs, and returns only once no job it let go
// earlier is still on its way into the scheduler, so none slips past both.
func (r *Runner) revokeWaiting(parts []transport.Partition) {
	if r.lim == nil || len(parts) == 0 {
		return
	}
	lost := make(map[string]bool, len(parts))
	for _, p := range parts {
		lost[rateGroup(p)] = true
	}
	r.lim.Revoke(func(g string) bool { return lost[g] }, transport.ErrRevoked)
}
