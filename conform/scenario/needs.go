package scenario

import "github.com/idemcheck/idemcheck/faults"

// The preconditions of checks (a Check's Needs): each says what the config
// lacks for a check to run against this Env, "" when nothing; the check is
// then n/a with that reason.

// NeedPSP: the fault is armed at fakepsp.
func NeedPSP(e *Env) string {
	if e.PSP == nil {
		return "needs effects.fakepsp: the fault is injected at the PSP"
	}
	return ""
}

// NeedProcs: the check kills and restarts an instance.
func NeedProcs(e *Env) string {
	if len(e.Procs) == 0 {
		return "needs target.command or target.control: idemcheck must be able to kill and restart an instance"
	}
	return ""
}

// NeedPause: A4 freezes the owner, which a service controlled by the user's
// commands can only be when the config gives a pause command.
func NeedPause(e *Env) string {
	for _, p := range e.Procs {
		if !faults.CanPause(p) {
			return "needs target.control.pause and resume: idemcheck must be able to freeze an instance"
		}
	}
	return ""
}

// NeedAll is the first reason any of fs gives.
func NeedAll(fs ...func(*Env) string) func(*Env) string {
	return func(e *Env) string {
		for _, f := range fs {
			if why := f(e); why != "" {
				return why
			}
		}
		return ""
	}
}

// NeedCallers: the check sends one key from two callers.
func NeedCallers(e *Env) string {
	if len(e.Cfg.Callers) < 2 {
		return "needs two callers in the config"
	}
	return ""
}

// NeedReplicas: the check sends to two instances.
func NeedReplicas(e *Env) string {
	if len(e.D.Bases()) < 2 {
		return "needs two instances (target.instances or two base_urls)"
	}
	return ""
}
