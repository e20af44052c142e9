package stripe

import (
	"encoding/json"
	"strings"
)

// EventJSON is a Stripe Event about obj, as both the API and every webhook
// delivery send it: pending is how many endpoints will get it, requestID
// and key (none when "") the request that raised it.
func EventJSON(id, typ string, created int64, obj map[string]any, pending int, requestID, key string) json.RawMessage {
	var k any
	if key != "" {
		k = key
	}
	raw, _ := json.Marshal(map[string]any{
		"id": id, "object": "event", "api_version": APIVersion, "created": created,
		"data": map[string]any{"object": obj}, "livemode": false, "pending_webhooks": pending,
		"request": map[string]any{"id": requestID, "idempotency_key": k}, "type": typ,
	})
	return raw
}

// TypeMatches says whether an endpoint subscribed to filters gets an event
// of type typ: no filter matches all; "payment_intent.*" matches a prefix.
func TypeMatches(filters []string, typ string) bool {
	if len(filters) == 0 {
		return true
	}
	for _, f := range filters {
		if f == "*" || f == typ || strings.HasSuffix(f, ".*") && strings.HasPrefix(typ, strings.TrimSuffix(f, "*")) {
			return true
		}
	}
	return false
}
