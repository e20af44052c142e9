// Package faults injects the faults that make payment requests repeat: network
// faults through an embedded Toxiproxy (lost replies, delays, cuts, resets, slow
// closes, bandwidth limits), and process faults on tier processes (kill, pause,
// resume, restart). Every fault can be undone and reports whether it fired, so a
// spec can fail when its fault was missed instead of passing vacuously.
package faults
