// Package dedup drops logical duplicates: the same message raised by two
// different requests (a reminder sent twice in a day). Request repeats are the
// inbox's job; this guard is a window in Valkey keyed by a fingerprint of
// recipient, template and business key. It fails open: a duplicate reminder is
// better than a lost one.
package dedup

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/valkey-io/valkey-go"
)

// Fingerprint identifies a logical message. Fields are length-prefixed so no
// two different triples hash alike ("a","bc" vs "ab","c").
func Fingerprint(recipient, template, businessKey string) string {
	h := sha256.New()
	for _, f := range []string{recipient, template, businessKey} {
		fmt.Fprintf(h, "%d:%s;", len(f), f)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Verdict is what the guard decided for one message.
type Verdict string

// Verdicts; each is stored with the notification record so a test (and an
// operator) can see why a message was or was not sent.
const (
	Send      Verdict = "send"      // first in its window
	Duplicate Verdict = "duplicate" // another message holds the window
	Capped    Verdict = "capped"    // the recipient's allowance is used up
	FailOpen  Verdict = "fail-open" // Valkey did not answer; sent anyway
	Unguarded Verdict = "unguarded" // the guard is switched off (mutant)
)

// Guard is the dedup window plus the per-recipient cap. A nil Client or Off
// switches the guard off.
type Guard struct {
	Client valkey.Client
	Window time.Duration
	// Cap is how many distinct messages one recipient may get per Window;
	// 0 means no cap. Counted only for messages that passed dedup.
	Cap int
	// Off is the no-dedup-key mutant: every message is sent.
	Off bool
}

// Accept decides whether message owner (the event id that raised it) with
// fingerprint fp may be sent to recipient. The window's value is the owner,
// not a bare 1, so a redelivery of the same event (a worker that died after
// claiming the window) is recognised as the holder rather than dropped as its
// own duplicate. Err reports why the guard failed open, for logs.
func (g *Guard) Accept(ctx context.Context, recipient, fp, owner string) (Verdict, error) {
	if g.Off || g.Client == nil {
		return Unguarded, nil
	}
	key := "dedup:" + fp
	secs := windowSeconds(g.Window)
	err := g.Client.Do(ctx, g.Client.B().Set().Key(key).Value(owner).Nx().ExSeconds(secs).Build()).Error()
	switch {
	case err == nil:
	case valkey.IsValkeyNil(err):
		holder, gerr := g.Client.Do(ctx, g.Client.B().Get().Key(key).Build()).ToString()
		switch {
		case gerr == nil && holder == owner:
		case gerr == nil || valkey.IsValkeyNil(gerr):
			// The holder's key may expire between SET and GET; either
			// way this owner lost the window it asked for.
			return Duplicate, nil
		default:
			return FailOpen, gerr
		}
	default:
		return FailOpen, err
	}
	if g.Cap <= 0 {
		return Send, nil
	}
	ok, err := capScript.Exec(ctx, g.Client, []string{"cap:" + recipient}, []string{owner, strconv.Itoa(g.Cap), strconv.FormatInt(secs, 10)}).AsInt64()
	if err != nil {
		return FailOpen, err
	}
	if ok == 0 {
		return Capped, nil
	}
	return Send, nil
}

// windowSeconds rounds the window up to whole seconds (EX takes seconds); a
// window never rounds down to "no window".
func windowSeconds(d time.Duration) int64 {
	n := int64((d + time.Second - 1) / time.Second)
	if n < 1 {
		return 1
	}
	return n
}

// capScript counts distinct owners per recipient, so a redelivered message
// does not spend the allowance twice and the check-and-add is atomic.
var capScript = valkey.NewLuaScript(`
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 1 end
if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('SADD', KEYS[1], ARGV[1])
if redis.call('TTL', KEYS[1]) < 0 then redis.call('EXPIRE', KEYS[1], ARGV[3]) end
return 1`)

// CheckNoEviction returns an error unless the server runs with
// maxmemory-policy noeviction: an evicted window key silently turns into a
// duplicate.
func CheckNoEviction(ctx context.Context, c valkey.Client) error {
	m, err := c.Do(ctx, c.B().ConfigGet().Parameter("maxmemory-policy").Build()).AsStrMap()
	if err != nil {
		return fmt.Errorf("dedup: CONFIG GET maxmemory-policy: %w", err)
	}
	if p := m["maxmemory-policy"]; p != "noeviction" {
		return fmt.Errorf("dedup: valkey maxmemory-policy is %q, want noeviction (evicted keys turn into duplicates)", p)
	}
	return nil
}

// Dial connects to Valkey at addr without client-side caching (the window is
// a server-side fact) and with short timeouts, so a dead cache fails open fast.
func Dial(addr string) (valkey.Client, error) {
	return valkey.NewClient(valkey.ClientOption{
		InitAddress:       []string{addr},
		DisableCache:      true,
		ConnWriteTimeout:  2 * time.Second,
		DisableRetry:      true,
		Dialer:            net.Dialer{Timeout: 2 * time.Second},
		ForceSingleClient: true,
	})
}
