package probe

import (
	"context"
	"crypto/rand"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/fakepsp"
)

// prober sends the probe requests, each exactly once, and counts the
// charges fakepsp made for each.
type prober struct {
	o    *Options
	psp  pspUnderProbe
	base string
	d    *driver.Driver
	n    int
	run  string
	// learn: the PSP is not known yet; a first create that reached
	// another PSP's route stops the probe to start over (dialect.go).
	learn bool
}

// seen is everything the probe learned, for the config and its comments.
type seen struct {
	key     placement
	keyNote string
	idPath  string
	// statusField is the answer member naming the payment's state.
	statusField string
	create      *driver.Attempt
	createN     int
	replay      *driver.Attempt
	replayHdr   string
	mismatch    *driver.Attempt
	mismatchN   int
	quoted      *driver.Attempt
	quotedSame  bool
	copies      []*driver.Attempt
	copiesN     int
	gateHeld    bool
	noKey       *driver.Attempt
	noKeyN      int
	declined    *driver.Attempt
	processing  *driver.Attempt
	faultFired  bool
	after5xx    *driver.Attempt
	// after5xxCalls: PSP calls the replay after the 5xx made (0: answered from a store).
	after5xxCalls int
	lookup        *driver.Attempt
}

func (p *prober) intent() driver.Meaning {
	p.n++
	if p.run == "" {
		b := make([]byte, 3)
		_, _ = rand.Read(b)
		p.run = fmt.Sprintf("%x", b)
	}
	return driver.Meaning{OrderID: fmt.Sprintf("probe-%s-%02d", p.run, p.n), Amount: int64(4200 + p.n), Currency: "USD", PaymentMethod: "pm_card_visa"}
}

func (p *prober) logf(format string, args ...any) {
	if p.o.Log != nil {
		fmt.Fprintf(p.o.Log, "idemcheck init --probe: "+format+"\n", args...)
	}
}

// send makes one create and returns it with the charges fakepsp made meanwhile.
func (p *prober) send(ctx context.Context, d *driver.Driver, step string, m driver.Meaning, key string, mode driver.KeyMode) (*driver.Attempt, int) {
	before := len(p.psp.Charges())
	a := d.Create(ctx, driver.Send{Step: step, Meaning: m, Key: key, KeyMode: mode, NoHistory: true, Timeout: p.o.Timeout})
	n := len(p.psp.Charges()) - before
	p.logf("%-28s %s %s -> %s (%d charge(s) at fakepsp)", step, a.Method, a.URL, describe(a), n)
	return a, n
}

func (p *prober) reachable(ctx context.Context) error {
	if err := driver.New(nil, nil).Reachable(ctx, p.base, p.o.Ready); err != nil {
		return fail("nothing answers at %s%s: %v (is the service running there?)", p.base, p.o.Ready, err)
	}
	return nil
}

func newKey() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// firstCreate says why the first create cannot start a config, or nil.
func (p *prober) firstCreate(a *driver.Attempt, charges int) error {
	req := fmt.Sprintf("%s %s", a.Method, a.URL)
	switch {
	case a.Err != "":
		return fail("%s: no answer: %s (is the service up, and is --path right?)", req, a.Err)
	case a.Status == 401 || a.Status == 403:
		return fail("%s answered %s: the service wants credentials; pass --caller 'Authorization: Bearer TOKEN' (twice, for two clients: the cross-caller check A6 needs them)", req, describe(a))
	case !success(a):
		return fail("%s answered %s: idemcheck needs a 2xx answer to a payment that succeeds (card pm_card_visa); check --method, --path and --body (now %s)", req, describe(a), p.o.Body)
	case !isJSON(a):
		return fail("%s answered %d with a body that is not a JSON object (%s): idemcheck reads the outcome and the payment id from a JSON answer", req, a.Status, describe(a))
	case charges == 0 && len(p.o.Command) > 0:
		return fail("%s answered %s but fakepsp saw no charge: does the service charge through the PSP at $PSP_URL with the key in $PSP_KEY?", req, describe(a))
	case charges == 0:
		return fail("%s answered %s but fakepsp (http://%s, key %s) saw no charge: start the service with that PSP URL and key", req, describe(a), p.o.PSPListen, p.o.PSPKey)
	}
	return nil
}

// observe runs every probe request in turn.
func (p *prober) observe(ctx context.Context) (*seen, error) {
	s := &seen{}
	var tried []string
	var in driver.Meaning
	var key string
	var first *driver.Attempt
	for _, k := range candidates(p.o) {
		d, err := newDriver(p.o, k, p.base)
		if err != nil {
			return nil, err
		}
		m, kk := p.intent(), newKey()
		a, n := p.send(ctx, d, "create, key in "+k.String(), m, kk, driver.KeyNormal)
		if first == nil {
			first = a
			if sw := p.spoken(); p.learn && n == 0 && sw != nil {
				return nil, sw
			}
		}
		if a.Err != "" || a.Status == 401 || a.Status == 403 {
			return nil, p.firstCreate(a, n)
		}
		if !success(a) {
			// Perhaps the key is expected elsewhere: try the next placement.
			tried = append(tried, fmt.Sprintf("%s: create answered %s", k, describe(a)))
			continue
		}
		if s.create == nil {
			if err := p.firstCreate(a, n); err != nil {
				return nil, err
			}
			p.d, s.key, s.create, s.createN, in, key = d, k, a, n, m, kk
		}
		b, bn := p.send(ctx, d, "replay of the same key", m, kk, driver.KeyNormal)
		if s.replay == nil {
			s.replay = b
		}
		// A replay under another status that names the same payment (a 409
		// with the stored body) deduplicated too: it made no charge.
		idp := findPath(a.RespBody, idNames)
		samePayment := b.Err == "" && b.Status < 500 && idp != "" && value(b, idp) != "" && value(b, idp) == value(a, idp)
		if (success(b) || samePayment) && bn == 0 {
			p.d, s.key, s.create, s.createN, s.replay, in, key = d, k, a, n, b, m, kk
			s.keyNote = fmt.Sprintf("a replay with the key in %s made no new charge", k)
			if !success(b) {
				s.keyNote += fmt.Sprintf(" (it answered %d with the same payment)", b.Status)
			}
			break
		}
		tried = append(tried, fmt.Sprintf("%s: the replay answered %s and made %d more charge(s)", k, describe(b), bn))
	}
	if s.create == nil {
		err := p.firstCreate(first, 0)
		if len(tried) > 1 {
			err = fail("%v\nwith the key elsewhere: %s", err, strings.Join(tried[1:], "; "))
		}
		return nil, err
	}
	if s.keyNote == "" {
		s.keyNote = "NO key placement was deduplicated (" + strings.Join(tried, "; ") +
			"): the service seems to ignore the key, and idemcheck run will show the double charges (pass --key-header or --key-body-field if it reads the key elsewhere)"
	}
	s.idPath = findPath(s.create.RespBody, idNames)
	s.statusField = findPath(s.create.RespBody, statusNames)
	s.replayHdr = replayHeader(s.create, s.replay)

	other := in
	other.Amount++
	s.mismatch, s.mismatchN = p.send(ctx, p.d, "same key, another amount", other, key, driver.KeyNormal)
	if s.key.Header != "" {
		var qn int
		s.quoted, qn = p.send(ctx, p.d, "same key, quoted \"K\"", in, key, driver.KeyQuoted)
		s.quotedSame = success(s.quoted) && qn == 0 && value(s.quoted, s.idPath) == value(s.create, s.idPath)
	}
	s.copies, s.copiesN, s.gateHeld = p.concurrent(ctx)
	s.noKey, s.noKeyN = p.send(ctx, p.d, "no key", p.intent(), "", driver.KeyOmit)
	if strings.Contains(p.o.Body, "payment_method") {
		m := p.intent()
		m.PaymentMethod = "pm_card_chargeDeclined"
		s.declined, _ = p.send(ctx, p.d, "declined card", m, newKey(), driver.KeyNormal)
	}
	f := p.psp.Faults().Arm(fakepsp.FaultSpec{Kind: fakepsp.Error500BeforeCharge, Match: fakepsp.Match{Times: 1}})
	pm, pk := p.intent(), newKey()
	s.processing, _ = p.send(ctx, p.d, "PSP answers 500 (no charge)", pm, pk, driver.KeyNormal)
	s.faultFired = f.Fired() > 0
	f.Undo()
	if s.faultFired && s.processing.Err == "" && s.processing.Status >= 500 {
		// Is the 5xx stored under the key, or is the key free again?
		calls := p.psp.CallCount()
		s.after5xx, _ = p.send(ctx, p.d, "replay after the 5xx", pm, pk, driver.KeyNormal)
		s.after5xxCalls = p.psp.CallCount() - calls
	}
	if id := value(s.create, s.idPath); id != "" {
		l := &config.Request{Method: "GET", Path: strings.TrimRight(p.o.Path, "/") + "/{{payment_id}}"}
		s.lookup = p.d.Call(ctx, l, "lookup", 0, 0, id, "")
		p.logf("%-28s GET %s -> %s", "lookup", s.lookup.URL, describe(s.lookup))
	}
	return s, nil
}

// concurrent sends one payment and, while fakepsp holds its charge at a
// gate, Copies-1 copies of it at once: the copies meet the first one in
// progress however fast the service is. The gate opens when the copies are
// answered, or after two seconds for a service that waits on the key.
func (p *prober) concurrent(ctx context.Context) ([]*driver.Attempt, int, bool) {
	m, key := p.intent(), newKey()
	before := len(p.psp.Charges())
	gate := p.psp.Faults().Arm(fakepsp.FaultSpec{Kind: fakepsp.GateBeforeCharge, Match: fakepsp.Match{Times: 1}})
	defer gate.Undo()
	out := make([]*driver.Attempt, p.o.Copies)
	send := func(i int) {
		out[i] = p.d.Create(ctx, driver.Send{Step: "concurrent copy", Meaning: m, Key: key, NoHistory: true, Timeout: p.o.Timeout})
	}
	first := make(chan struct{})
	go func() { defer close(first); send(0) }()
	wctx, cancel := context.WithTimeout(ctx, p.o.Timeout)
	held := gate.WaitFired(wctx, 1) == nil
	cancel()
	var wg sync.WaitGroup
	for i := 1; i < len(out); i++ {
		wg.Add(1)
		go func() { defer wg.Done(); send(i) }()
	}
	copies := make(chan struct{})
	go func() { wg.Wait(); close(copies) }()
	select {
	case <-copies:
	case <-time.After(2 * time.Second):
	}
	gate.Release()
	<-copies
	<-first
	n := len(p.psp.Charges()) - before
	for _, a := range out {
		p.logf("%-28s %s %s -> %s", "concurrent copy", a.Method, a.URL, describe(a))
	}
	p.logf("%d concurrent copies (the first held at the PSP: %t) made %d charge(s) at fakepsp", len(out), held, n)
	return out, n, held
}
