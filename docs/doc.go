// Package docs holds the user documentation of idemcheck (the .md files
// here). Its only code is the test that keeps SCENARIOS.md true to the
// suites, the mutant catalogue and the checks `idemcheck run` goes through.
package docs
