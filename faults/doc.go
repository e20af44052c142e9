// Package faults injects the faults that make payment requests repeat, and
// holds their one catalogue (All): network faults through an embedded
// Toxiproxy (lost replies, lag, cuts, resets), process faults on tier
// processes (kill, pause, restart), fakepsp's fault kinds over its control
// API, and failpoints in tier code over the tiers' admin API. Each family has
// its file (net_faults.go, proc_faults.go, psp_faults.go,
// failpoint_faults.go); a new fault is one value in its family's list, and
// the chaos schedule draws from All what applies to the system at hand.
//
// Every fault reports whether it fired (Fired) and can be undone (Undo), so a
// spec fails when its fault was missed instead of passing vacuously. The
// package imports nothing of the project's own: it speaks HTTP to fakepsp and
// the tiers, and takes a System of small interfaces.
package faults
