// Package kit is what an incident suite needs and would otherwise copy: the
// real servers, a world per spec with the fake PSP and one recorder, the
// reference stack, tier processes with their logs, and a client for your own
// service built from Go values. The project's suites use it; so can yours
// (examples/ shows both kinds).
//
// A suite's test binary can become any tier of the reference stack, so its
// TestMain is one line:
//
//	func TestMain(m *testing.M) { kit.Main(m) }
//
// and its servers one more, at package level:
//
//	var srv = kit.Servers(kit.Need{Postgres: true, Valkey: true})
//
// Every world registers its own teardown (processes first, then its
// databases and topics, then its log dir) and, when the spec failed, adds
// the tails of its tier logs to the report. Check a history with the
// matchers of checker/matchers:
//
//	Expect(w.History(ctx)).To(matchers.HaveNoViolations())
//
// and a caught spec with the exact kinds it expects, nothing besides
// (matchers.HaveExactViolations when the count is fixed too):
//
//	Expect(w.History(ctx)).To(kit.HaveExactKinds(checker.KindDoubleCredit))
package kit
