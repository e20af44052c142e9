package core

import (
	"sync"
	"time"
)

// RateLimits are token buckets per account and per (account, endpoint).
// Zero rates take the dialect's defaults; Disabled turns both off.
type RateLimits struct {
	PerAccount  float64 // requests per second (Stripe: 100)
	PerEndpoint float64 // requests per second (Stripe: 25)
	Disabled    bool
}

// RateLimiter holds token buckets per account and per (account, endpoint),
// refilled on real time: it limits throughput, which the PSP clock does not
// measure.
type RateLimiter struct {
	cfg     RateLimits
	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	last   time.Time
}

// NewRateLimiter makes a limiter with cfg's rates.
func NewRateLimiter(cfg RateLimits) *RateLimiter {
	return &RateLimiter{cfg: cfg, buckets: map[string]*bucket{}}
}

// Allow takes one token from both buckets, or none when either is empty.
func (l *RateLimiter) Allow(acct, endpoint string) bool {
	if l.cfg.Disabled {
		return true
	}
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	a := l.fill("a\x00"+acct, l.cfg.PerAccount, now)
	e := l.fill("e\x00"+acct+"\x00"+endpoint, l.cfg.PerEndpoint, now)
	if a.tokens < 1 || e.tokens < 1 {
		return false
	}
	a.tokens--
	e.tokens--
	return true
}

// fill refills a bucket whose burst equals one second of its rate.
func (l *RateLimiter) fill(k string, rate float64, now time.Time) *bucket {
	b, ok := l.buckets[k]
	if !ok {
		b = &bucket{tokens: rate, last: now}
		l.buckets[k] = b
		return b
	}
	b.tokens += now.Sub(b.last).Seconds() * rate
	if b.tokens > rate {
		b.tokens = rate
	}
	b.last = now
	return b
}
