package fakepsp

import "github.com/idemcheck/idemcheck/fakepsp/core"

func keyTooLong() response { return refuse(core.Refusal{Kind: core.RefuseKeyTooLong}) }

func keyMismatch(key string, e *core.KeyEntry, scope string) response {
	return refuse(core.Refusal{Kind: core.RefuseKeyMismatch, Key: key, Scope: scope, FirstScope: e.Scope})
}

func keyInUse(key string) response { return refuse(core.Refusal{Kind: core.RefuseKeyInUse, Key: key}) }
