// Package keystore is the reference stack's key store in Valkey: one hash per
// scope holding the claim (owner, in_progress_until), the fingerprint, and
// then the final answer or a pointer to the payment. Every write is one Lua
// script, so a claim, a takeover and a completion are each one atomic
// conditional write. Expiry is judged by the script against the tier's own
// clock (expires_at < now), never by Valkey's TTL, which is cleanup only.
package keystore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/valkey-io/valkey-go"
)

// Record states.
const (
	InProgress = "IN_PROGRESS"
	Done       = "DONE"    // a final answer is stored
	Pointer    = "POINTER" // answers are rendered from the payment
	Void       = "VOID"
)

// ErrUnknownOutcome is a write whose reply was lost (EOF, timeout): it may
// have been applied (docs/PITFALLS.md#valkey).
var ErrUnknownOutcome = errors.New("keystore: write outcome unknown")

// Record is one key record. Times are the tier clock's unix nanoseconds.
type Record struct {
	State           string
	Fingerprint     string
	Owner           string
	InProgressUntil int64
	ExpiresAt       int64
	PaymentID       string
	Status          int
	Body            string
}

// Expired reports whether the read path must treat r as absent at now.
func (r *Record) Expired(now int64) bool { return r.ExpiresAt != 0 && r.ExpiresAt < now }

// Store is the key store client.
type Store struct {
	C      valkey.Client
	Prefix string
	// CleanupTTL is Valkey's own expiry on every record, in real time: only
	// cleanup, set well past the windows so the read path is what decides.
	CleanupTTL time.Duration
	// TrustPresence is the mutant read-path-trusts-presence: an expired
	// record still present is read as live.
	TrustPresence bool
	// CheckThenInsert is the mutant check-then-insert: a read, then an
	// unconditional write, with BetweenCheckAndWrite run in the gap.
	CheckThenInsert      bool
	BetweenCheckAndWrite func()
}

// Dial connects to a Valkey at addr. valkey-go surfaces a lost reply as an
// error and does not resend writes; read retries are off too.
func Dial(addr string) (valkey.Client, error) {
	return valkey.NewClient(valkey.ClientOption{InitAddress: []string{addr}, DisableRetry: true, DisableCache: true})
}

func (s *Store) key(scope string) string { return s.Prefix + "idem:" + scope }

func (s *Store) ttlMillis() string {
	if s.CleanupTTL <= 0 {
		return "86400000"
	}
	return strconv.FormatInt(s.CleanupTTL.Milliseconds(), 10)
}

// claimScript writes an IN_PROGRESS (or VOID) record if the key is absent or
// its expires_at has passed (ARGV[6] = "1" trusts presence instead). It returns
// {1} when it wrote, or {0, fields...} with the record it found.
var claimScript = valkey.NewLuaScript(`
local cur = redis.call('HGETALL', KEYS[1])
if #cur > 0 then
  local exp = 0
  for i = 1, #cur, 2 do if cur[i] == 'exp' then exp = tonumber(cur[i+1]) end end
  if ARGV[6] == '1' or exp == 0 or exp >= tonumber(ARGV[1]) then
    table.insert(cur, 1, 0)
    return cur
  end
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'state', ARGV[7], 'fp', ARGV[2], 'owner', ARGV[3], 'ipu', ARGV[4], 'exp', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[8])
return {1}
`)

// completeScript stores the answer only if owner = ARGV[1] (ARGV[2] = "1":
// unconditional, the mutant complete-unconditional). Returns {1} or {0, fields...}.
var completeScript = valkey.NewLuaScript(`
local owner = redis.call('HGET', KEYS[1], 'owner')
if ARGV[2] ~= '1' and owner ~= ARGV[1] then
  local cur = redis.call('HGETALL', KEYS[1])
  table.insert(cur, 1, 0)
  return cur
end
redis.call('HSET', KEYS[1], 'state', ARGV[3], 'pid', ARGV[4], 'status', ARGV[5], 'body', ARGV[6], 'exp', ARGV[7], 'owner', ARGV[1])
if ARGV[8] ~= '' then redis.call('HSET', KEYS[1], 'fp', ARGV[8]) end
redis.call('PEXPIRE', KEYS[1], ARGV[9])
return {1}
`)

// Claim tries to claim scope for owner. exp is the record's expires_at: for
// an IN_PROGRESS claim it is in_progress_until + clock margin, so a takeover
// is a claim on an expired lease and is as atomic as the first claim. It
// returns (nil, nil) when claimed, or the record that holds the scope.
func (s *Store) Claim(ctx context.Context, scope, state, fp, owner string, now, ipu, exp int64) (*Record, error) {
	if s.CheckThenInsert {
		cur, err := s.Get(ctx, scope, now)
		if err != nil || cur != nil {
			return cur, err
		}
		if s.BetweenCheckAndWrite != nil {
			s.BetweenCheckAndWrite()
		}
		return nil, s.SetBlind(ctx, scope, Record{State: state, Fingerprint: fp, Owner: owner, InProgressUntil: ipu, ExpiresAt: exp})
	}
	if s.BetweenCheckAndWrite != nil {
		s.BetweenCheckAndWrite()
	}
	trust := "0"
	if s.TrustPresence {
		trust = "1"
	}
	res := claimScript.Exec(ctx, s.C, []string{s.key(scope)}, []string{
		i64(now), fp, owner, i64(ipu), i64(exp), trust, state, s.ttlMillis()})
	return decode(res)
}

// Complete stores the final answer (state Done, status, body) or a pointer
// (state Pointer, paymentID) only if the record's owner is owner. It returns
// (nil, nil) on success, or the record whose other owner refused it. fp, when
// non-empty, rewrites the fingerprint (a record rewritten after expiry).
func (s *Store) Complete(ctx context.Context, scope, owner, state, paymentID string, status int, body string, exp int64, fp string, unconditional bool) (*Record, error) {
	u := "0"
	if unconditional {
		u = "1"
	}
	res := completeScript.Exec(ctx, s.C, []string{s.key(scope)}, []string{
		owner, u, state, paymentID, strconv.Itoa(status), body, i64(exp), fp, s.ttlMillis()})
	return decode(res)
}

// SetBlind overwrites the record unconditionally: only mutants
// (check-then-insert, non-atomic-resolve) write this way.
func (s *Store) SetBlind(ctx context.Context, scope string, r Record) error {
	k := s.key(scope)
	cmds := valkey.Commands{
		s.C.B().Del().Key(k).Build(),
		s.C.B().Hset().Key(k).FieldValue().FieldValue("state", r.State).FieldValue("fp", r.Fingerprint).
			FieldValue("owner", r.Owner).FieldValue("exp", i64(r.ExpiresAt)).FieldValue("pid", r.PaymentID).
			FieldValue("ipu", i64(r.InProgressUntil)).Build(),
	}
	for _, res := range s.C.DoMulti(ctx, cmds...) {
		if err := res.Error(); err != nil {
			return writeErr(err)
		}
	}
	return nil
}

// Get reads the record of scope; nil when absent or (unless TrustPresence)
// expired at now.
func (s *Store) Get(ctx context.Context, scope string, now int64) (*Record, error) {
	m, err := s.C.Do(ctx, s.C.B().Hgetall().Key(s.key(scope)).Build()).AsStrMap()
	if err != nil {
		return nil, fmt.Errorf("keystore: get %s: %w", scope, err)
	}
	if len(m) == 0 {
		return nil, nil
	}
	r := fromMap(m)
	if !s.TrustPresence && r.Expired(now) {
		return nil, nil
	}
	return r, nil
}

func decode(res valkey.ValkeyResult) (*Record, error) {
	arr, err := res.ToArray()
	if err != nil {
		return nil, writeErr(err)
	}
	if len(arr) == 0 {
		return nil, fmt.Errorf("keystore: empty script reply")
	}
	ok, err := arr[0].AsInt64()
	if err != nil {
		return nil, fmt.Errorf("keystore: script reply: %w", err)
	}
	if ok == 1 {
		return nil, nil
	}
	m := map[string]string{}
	for i := 1; i+1 < len(arr); i += 2 {
		k, _ := arr[i].ToString()
		v, _ := arr[i+1].ToString()
		m[k] = v
	}
	return fromMap(m), nil
}

func writeErr(err error) error {
	if valkey.IsValkeyNil(err) {
		return err
	}
	var ve *valkey.ValkeyError
	if errors.As(err, &ve) {
		return fmt.Errorf("keystore: %w", err)
	}
	// Anything but a server reply (EOF, timeout, closed) leaves the write's
	// fate unknown.
	return fmt.Errorf("%w: %v", ErrUnknownOutcome, err)
}

func fromMap(m map[string]string) *Record {
	r := &Record{State: m["state"], Fingerprint: m["fp"], Owner: m["owner"], PaymentID: m["pid"], Body: m["body"]}
	r.InProgressUntil, _ = strconv.ParseInt(m["ipu"], 10, 64)
	r.ExpiresAt, _ = strconv.ParseInt(m["exp"], 10, 64)
	r.Status, _ = strconv.Atoi(m["status"])
	return r
}

func i64(v int64) string { return strconv.FormatInt(v, 10) }
