// Package checks is the catalogue of idemcheck run's checks, one file per
// check named by its ID (A1 in a1.go, S-restart in s_restart.go, P-once in
// p_once.go, W-dup in w_dup.go, Q-kill in q_kill.go), in the one ordered
// list of checks.go: black-box fault scenarios (docs/SCENARIOS.md IDs), the
// protocol vectors of public conformance suites, the payment-only safety
// checks, the webhook and queue checks, and the chaos check (chaos_*.go).
// They run on the engine in conform/scenario.
package checks
