package fakepsp

import "strconv"

// listLimit reads Stripe's limit parameter: 1..100, default 10.
func listLimit(p params) (int, *response) {
	n, present, bad := p.int64("limit")
	if bad != nil {
		return 0, bad
	}
	if !present {
		return 10, nil
	}
	if n < 1 || n > 100 {
		e := invalidParam("limit", "This value must be between 1 and 100 (got "+strconv.FormatInt(n, 10)+").")
		return 0, &e
	}
	return int(n), nil
}

// listPage is Stripe's list envelope over data (already in answer order).
func listPage(url string, data []any, limit int) map[string]any {
	more := len(data) > limit
	if more {
		data = data[:limit]
	}
	if data == nil {
		data = []any{}
	}
	return map[string]any{"object": "list", "url": url, "has_more": more, "data": data}
}
