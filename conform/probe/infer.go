package probe

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/conform/driver"
)

// rule is one outcome rule with the comment saying what it comes from.
type rule struct {
	status  []int
	field   string
	equals  string
	outcome string
	seen    string
}

// setting is one protocol setting and what it comes from.
type setting struct{ name, value, seen string }

// inferred is what the config says, decided from what was seen.
type inferred struct {
	rules    []rule
	notes    []string // comments above the outcomes
	profile  string
	why      string
	protocol []setting
	lookup   bool
}

func addStatus(ss []int, s int) []int {
	if !slices.Contains(ss, s) {
		ss = append(ss, s)
		sort.Ints(ss)
	}
	return ss
}

// inProgress is the answer the concurrent copies got that is not the
// success: the first such 4xx, and whether all of them carried Retry-After.
// A 5xx is never in progress: a service that fails a copy under contention
// did not say the first is still running, and mapping it in_progress would
// let an error answer stand for a pending payment (serverErrors notes it).
func inProgress(s *seen) (*driver.Attempt, bool, int) {
	var first *driver.Attempt
	retryAfter, n := true, 0
	for _, a := range s.copies {
		if a.Err != "" || success(a) || a.Status >= 500 {
			continue
		}
		n++
		if first == nil {
			first = a
		}
		if _, ok := a.Header("Retry-After"); !ok {
			retryAfter = false
		}
	}
	return first, retryAfter && first != nil, n
}

// serverErrors is the first 5xx among the concurrent copies, and how many.
func serverErrors(s *seen) (*driver.Attempt, int) {
	var first *driver.Attempt
	n := 0
	for _, a := range s.copies {
		if a.Err == "" && a.Status >= 500 {
			n++
			if first == nil {
				first = a
			}
		}
	}
	return first, n
}

func infer(s *seen) *inferred {
	inf := &inferred{}
	sf := s.statusField
	okValue := value(s.create, sf)
	okStatus := []int{s.create.Status}
	if success(s.replay) {
		okStatus = addStatus(okStatus, s.replay.Status)
	}
	for _, a := range s.copies {
		if success(a) && value(a, sf) == okValue {
			okStatus = addStatus(okStatus, a.Status)
		}
	}
	mis := s.mismatch
	ip, retryAfter, nip := inProgress(s)
	taken := map[int]string{} // error statuses already given an outcome
	if !success(mis) && mis.Err == "" {
		taken[mis.Status] = "mismatch"
	}
	if _, ok := taken[statusOf(ip)]; ip != nil && !ok {
		taken[ip.Status] = "in_progress"
	}
	if s.noKey.Err == "" && !success(s.noKey) {
		if _, ok := taken[s.noKey.Status]; !ok {
			taken[s.noKey.Status] = "error"
		}
	}

	// Success, and the answers that look like it but say otherwise.
	if okValue != "" {
		inf.rules = append(inf.rules, rule{okStatus, sf, okValue, "succeeded", "create: " + describe(s.create)})
		if r := s.replay; replayedUnderOtherStatus(s) {
			// The replay repeated the create's payment under another status
			// (a 409 with the stored body): a replay, never "in progress".
			// It is read by the payment's status field, so that status
			// without the payment can still mean in progress.
			inf.rules = append(inf.rules, rule{[]int{r.Status}, sf, okValue, "succeeded", "the replay of the create: " + describe(r)})
			inf.notes = append(inf.notes, fmt.Sprintf("the replay answered %d with the create's payment: read as the replay it is, by %s (P-replay holds the status to the first answer's)", r.Status, sf))
		}
	}
	failedStatus, failedValue := []int{}, ""
	if d := s.declined; d != nil {
		dv := value(d, sf)
		switch {
		case d.Err != "":
			inf.notes = append(inf.notes, "a declined card (pm_card_chargeDeclined) got no answer: "+describe(d))
		case d.Status >= 500 || errorWord(dv):
			inf.notes = append(inf.notes, "a declined card got "+describe(d)+": an error says nothing definite, so it is not mapped as failed (default outcome: error)")
		case dv != "" && dv != okValue:
			failedStatus, failedValue = []int{d.Status}, dv
		case success(d):
			inf.notes = append(inf.notes, "a declined card was answered like a success ("+describe(d)+"): idemcheck cannot tell the two apart")
		case taken[d.Status] != "":
			inf.notes = append(inf.notes, fmt.Sprintf("a declined card got %d, the status of the %s answer too, with no status field to tell them apart: not mapped", d.Status, taken[d.Status]))
		default:
			failedStatus = []int{d.Status}
		}
	}
	if p := s.processing; !s.faultFired {
		inf.notes = append(inf.notes, "a PSP 500 was armed but the service made no PSP call for it: the processing answer was not seen")
	} else if pv := value(p, sf); p.Err == "" && pv != "" && pv == failedValue && len(failedStatus) > 0 {
		failedStatus = addStatus(failedStatus, p.Status)
		inf.notes = append(inf.notes, fmt.Sprintf("after a PSP 500 (no charge) the service answered %s: it calls an unknown PSP outcome a failure (S-5xx-after-charge checks that)", describe(p)))
	} else if p.Err == "" && pv != "" && pv != okValue && !errorWord(pv) && p.Status < 500 && (success(p) || taken[p.Status] == "") {
		inf.rules = append(inf.rules, rule{[]int{p.Status}, sf, pv, "processing", "after a PSP 500 (no charge): " + describe(p)})
	} else if success(p) && pv == okValue {
		inf.notes = append(inf.notes, "after one PSP 500 the service still answered success ("+describe(p)+"): it retried the PSP itself")
	} else {
		inf.notes = append(inf.notes, "after a PSP 500 (no charge) the service answered "+describe(p)+": left to the default outcome error (idemcheck retries until a final answer)")
	}
	if len(failedStatus) > 0 {
		inf.rules = append(inf.rules, rule{failedStatus, fieldIf(failedValue, sf), failedValue, "failed", "declined card: " + describe(s.declined)})
	}
	if okValue == "" {
		// No member says what became of the payment: the status code must.
		inf.rules = append(inf.rules, rule{okStatus, "", "", "succeeded", "create: " + describe(s.create) + " (no status member in the answer)"})
	}

	// Errors of the protocol.
	if e5, n5 := serverErrors(s); e5 != nil {
		inf.notes = append(inf.notes, fmt.Sprintf("%d of %d concurrent copies got a 5xx (%s): an error, never mapped as in progress (default outcome: error, retried until a final answer)",
			n5, len(s.copies), describe(e5)))
	}
	if ip != nil {
		inf.rules = append(inf.rules, rule{[]int{ip.Status}, "", "", "in_progress", fmt.Sprintf("%d of %d concurrent copies: %s", nip, len(s.copies), describe(ip))})
	}
	if !success(mis) && mis.Err == "" {
		r := rule{[]int{mis.Status}, "", "", "mismatch", "same key, another amount: " + describe(mis)}
		for _, o := range []struct {
			a    *driver.Attempt
			what string
		}{{ip, "an in-progress copy"}, {s.noKey, "a create without a key"}} {
			if o.a == nil || o.a.Status != mis.Status || r.outcome == "" {
				continue
			}
			// One status for two answers: tell the mismatch by its error code.
			cp, cm := errorCode(mis)
			if _, co := errorCode(o.a); cp != "" && cm != co {
				r.field, r.equals = cp, cm
			} else {
				inf.notes = append(inf.notes, fmt.Sprintf("a mismatch and %s both got %d with nothing to tell them apart: no mismatch rule", o.what, mis.Status))
				r = rule{}
			}
		}
		if r.outcome != "" {
			inf.rules = append(inf.rules, r)
		}
	}
	inferProtocol(s, inf, ip, retryAfter)
	unseen(inf, ip == nil, success(mis))
	// Field rules first: a plain status rule must not shadow them.
	sort.SliceStable(inf.rules, func(i, j int) bool { return inf.rules[i].field != "" && inf.rules[j].field == "" })
	if l := s.lookup; l != nil && l.Status == 200 && value(l, s.idPath) == value(s.create, s.idPath) {
		inf.lookup = true
	}
	return inf
}

func statusOf(a *driver.Attempt) int {
	if a == nil {
		return 0
	}
	return a.Status
}

// replayedUnderOtherStatus says the replay named the create's payment, in
// the same state, under a status that is not a success.
func replayedUnderOtherStatus(s *seen) bool {
	r := s.replay
	return r != nil && r.Err == "" && !success(r) && r.Status < 500 && s.idPath != "" &&
		value(r, s.idPath) != "" && value(r, s.idPath) == value(s.create, s.idPath) &&
		value(r, s.statusField) == value(s.create, s.statusField)
}

// errorWord is a status value that names an error, not a payment's state.
func errorWord(v string) bool {
	switch strings.ToLower(v) {
	case "error", "errored", "internal_error", "server_error", "unavailable":
		return true
	}
	return false
}

// unseen maps the profile's in-progress and mismatch statuses when the
// probe never saw them, so such an answer under faults is not an error.
func unseen(inf *inferred, noInProgress, noMismatch bool) {
	prof := config.Profiles[inf.profile]
	// A rule that reads a status by a field (a replay's 409 naming the
	// payment) leaves that status without the field unmapped.
	used := func(st int) bool {
		for _, r := range inf.rules {
			if r.field == "" && slices.Contains(r.status, st) {
				return true
			}
		}
		return false
	}
	if noInProgress && !used(prof.InProgressStatus) {
		inf.rules = append(inf.rules, rule{[]int{prof.InProgressStatus}, "", "", "in_progress", fmt.Sprintf("no in-progress answer: profile %s's in_progress_status", inf.profile)})
	}
	if noMismatch && !used(prof.MismatchStatus) {
		inf.rules = append(inf.rules, rule{[]int{prof.MismatchStatus}, "", "", "mismatch", fmt.Sprintf("no mismatch answer: profile %s's mismatch_status", inf.profile)})
	}
}

func fieldIf(v, f string) string {
	if v == "" {
		return ""
	}
	return f
}

// inferProtocol picks the profile and writes every protocol setting seen.
func inferProtocol(s *seen, inf *inferred, ip *driver.Attempt, retryAfter bool) {
	mis := s.mismatch
	_, misCode := errorCode(mis)
	var errs []*driver.Attempt
	for _, a := range []*driver.Attempt{mis, ip, s.noKey} {
		if a != nil && a.Err == "" && a.Status >= 400 && a.Status < 500 {
			errs = append(errs, a)
		}
	}
	problem := len(errs) > 0
	for _, a := range errs {
		problem = problem && problemJSON(a)
	}
	switch {
	case mis.Status == 400 && misCode == "idempotency_error":
		inf.profile, inf.why = "stripe", "a mismatch got 400 idempotency_error, as Stripe answers"
	case problem:
		inf.profile, inf.why = "ietf", "every error answer seen was application/problem+json, as the IETF draft asks"
	default:
		inf.profile, inf.why = "custom", "the errors are neither Stripe's nor problem+json"
	}
	prof := config.Profiles[inf.profile]
	set := func(name, v, seen string) { inf.protocol = append(inf.protocol, setting{name, v, seen}) }
	setStatus := func(name string, v, want int, seen string) {
		if v != want {
			seen += fmt.Sprintf(" (profile %s says %d: this is the service's own; delete the line to hold it to the profile)", inf.profile, want)
		}
		set(name, fmt.Sprint(v), seen)
	}
	if !success(mis) && mis.Err == "" {
		setStatus("mismatch_status", mis.Status, prof.MismatchStatus, "same key, another amount: "+describe(mis))
		if inf.profile == "stripe" {
			set("mismatch_code", q(misCode), "the mismatch answer's code")
		}
	} else {
		inf.notes = append(inf.notes, "SAME KEY, ANOTHER AMOUNT was answered "+describe(mis)+
			fmt.Sprintf(" (%d charge(s)): the service did not refuse the reused key (A5 will say so)", s.mismatchN))
	}
	if ip != nil {
		setStatus("in_progress_status", ip.Status, prof.InProgressStatus, "a concurrent copy: "+describe(ip))
		if retryAfter {
			set("retry_after", "required", "every in-progress answer carried Retry-After")
		}
	} else if _, n5 := serverErrors(s); s.copiesN <= 1 && n5 == 0 {
		// (Copies answered 5xx got no final answer: the note on the 5xx
		// says so instead.)
		why := "the first was held at the PSP meanwhile: the service waits on the key"
		if !s.gateHeld {
			why = "the first never reached the PSP, so they may not have overlapped"
		}
		inf.notes = append(inf.notes, fmt.Sprintf("%d concurrent copies all got a final answer (%s); in_progress_status stays %d",
			len(s.copies), why, prof.InProgressStatus))
	}
	if s.copiesN > 1 {
		inf.notes = append(inf.notes, fmt.Sprintf("%d CONCURRENT COPIES OF ONE PAYMENT MADE %d CHARGES (A2 will say so)", len(s.copies), s.copiesN))
	}
	if s.noKey.Err == "" && !success(s.noKey) {
		setStatus("missing_key_status", s.noKey.Status, prof.MissingKeyStatus, "no key: "+describe(s.noKey))
	} else {
		inf.notes = append(inf.notes, fmt.Sprintf("A CREATE WITHOUT A KEY was answered %s (%d charge(s)); missing_key_status stays %d", describe(s.noKey), s.noKeyN, prof.MissingKeyStatus))
	}
	if s.replayHdr != "" {
		set("replay_header", q(s.replayHdr), "on the replay, not on the first answer")
	} else if prof.ReplayHeader != "" {
		set("replay_header", q(""), "no header marked the replay")
	}
	if s.quoted != nil {
		set("quoted_key_same", fmt.Sprint(s.quotedSame), "the key sent quoted (\"K\"): "+describe(s.quoted))
	}
	if a := s.after5xx; a != nil {
		same := a.Status == s.processing.Status && a.RespBody == s.processing.RespBody
		switch {
		case s.after5xxCalls > 0:
			set("stores_5xx", "not_stored", fmt.Sprintf("the same key after %d called the PSP again (%d call(s)) and answered %s", s.processing.Status, s.after5xxCalls, describe(a)))
		case same:
			set("stores_5xx", "stored", fmt.Sprintf("the same key after %d got the same answer without a PSP call", s.processing.Status))
		}
	}
	set("problem_json", fmt.Sprint(problem), fmt.Sprintf("%d error answer(s) seen", len(errs)))
	if problem {
		cp, _ := errorCode(errs[0])
		if cp != "" && cp != "code" && !strings.Contains(cp, ".") {
			set("problem_code", q(cp), "the member the problem bodies carry")
		}
	}
}
