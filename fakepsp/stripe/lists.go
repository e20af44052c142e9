package stripe

import (
	"net/http"
	"slices"
	"strconv"

	"github.com/idemcheck/idemcheck/fakepsp/core"
)

// ListLimit reads Stripe's limit parameter: 1..100, default 10.
func ListLimit(p Params) (int, *core.Reply) {
	n, present, bad := p.Int64("limit")
	if bad != nil {
		return 0, bad
	}
	if !present {
		return 10, nil
	}
	if n < 1 || n > 100 {
		e := InvalidParam("limit", "This value must be between 1 and 100 (got "+strconv.FormatInt(n, 10)+").")
		return 0, &e
	}
	return int(n), nil
}

// Paginate answers one page of a list, newest first (ids[i] names
// items[i]), with Stripe's cursors: starting_after pages towards older
// objects, ending_before towards newer ones, and has_more says whether
// more lie beyond the page in the direction of travel. A cursor that names
// no object of the list gives an empty page.
func Paginate(prm Params, url string, ids []string, items []any) core.Reply {
	return PaginateLazy(prm, url, ids, func(i int) (any, error) { return items[i], nil })
}

// PaginateLazy is Paginate over items fetched one by one, only those on the
// page (item(i) for ids[i]); a fetch that fails is the page's 500
// (RefuseStorage), never a page without it.
func PaginateLazy(prm Params, url string, ids []string, item func(int) (any, error)) core.Reply {
	limit, bad := ListLimit(prm)
	if bad != nil {
		return *bad
	}
	after, before := prm.Str("starting_after"), prm.Str("ending_before")
	if after != "" && before != "" {
		return ErrorReply(http.StatusBadRequest, Error{Type: "invalid_request_error", Param: "ending_before",
			Message: "You may only specify one of these parameters: ending_before, starting_after."})
	}
	lo, hi, more := 0, len(ids), false
	switch {
	case after != "":
		if i := slices.Index(ids, after); i >= 0 {
			lo = i + 1
		} else {
			lo = hi
		}
		if hi-lo > limit {
			hi, more = lo+limit, true
		}
	case before != "":
		hi = max(slices.Index(ids, before), 0)
		if hi-lo > limit {
			lo, more = hi-limit, true
		}
	default:
		if hi > limit {
			hi, more = limit, true
		}
	}
	data := make([]any, 0, hi-lo)
	for i := lo; i < hi; i++ {
		it, err := item(i)
		if err != nil {
			return Dialect{}.Refuse(core.Refusal{Kind: core.RefuseStorage, Detail: err.Error()})
		}
		data = append(data, it)
	}
	return core.Reply{Status: http.StatusOK, Body: map[string]any{"object": "list", "url": url, "has_more": more, "data": data}}
}
