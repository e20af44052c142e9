// Package conform is `idemcheck run`: black-box conformance of an HTTP
// payment endpoint under faults. It loads a config (conform/config), starts
// what the config asks for (fakepsp, the target's processes, Toxiproxy links),
// runs the checks (conform/checks, on the engine in conform/scenario) through a client that
// never resends on its own (conform/driver), and writes the reports
// (conform/report) with two verdict levels: safety and protocol.
package conform
