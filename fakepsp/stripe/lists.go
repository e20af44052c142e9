package stripe

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

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
	q, bad := readPageQuery(prm)
	if bad != nil {
		return *bad
	}
	lo, hi, more := 0, len(ids), false
	switch {
	case q.after != "":
		if i := slices.Index(ids, q.after); i >= 0 {
			lo = i + 1
		} else {
			lo = hi
		}
		if hi-lo > q.limit {
			hi, more = lo+q.limit, true
		}
	case q.before != "":
		hi = max(slices.Index(ids, q.before), 0)
		if hi-lo > q.limit {
			lo, more = hi-q.limit, true
		}
	default:
		if hi > q.limit {
			hi, more = q.limit, true
		}
	}
	data := make([]any, 0, hi-lo)
	for i := lo; i < hi; i++ {
		it, err := item(i)
		if err != nil {
			// "fakepsp: " once in the message (refusals.go).
			return Dialect{}.Refuse(core.Refusal{Kind: core.RefuseStorage, Detail: strings.TrimPrefix(err.Error(), "fakepsp: ")})
		}
		data = append(data, it)
	}
	return listPage(url, data, more)
}

// pageQuery is the page a list request asks for: its size and at most one
// cursor, an object's id the page starts after (towards older objects) or
// ends before (towards newer ones).
type pageQuery struct {
	limit         int
	after, before string
}

// readPageQuery reads prm's page; the reply is Stripe's error for a limit
// out of range or both cursors.
func readPageQuery(prm Params) (pageQuery, *core.Reply) {
	limit, bad := ListLimit(prm)
	if bad != nil {
		return pageQuery{}, bad
	}
	q := pageQuery{limit: limit, after: prm.Str("starting_after"), before: prm.Str("ending_before")}
	if q.after != "" && q.before != "" {
		e := ErrorReply(http.StatusBadRequest, Error{Type: "invalid_request_error", Param: "ending_before",
			Message: "You may only specify one of these parameters: ending_before, starting_after."})
		return pageQuery{}, &e
	}
	return q, nil
}

// listPage is one page of a list in Stripe's envelope, newest first.
func listPage(url string, data []any, more bool) core.Reply {
	return core.Reply{Status: http.StatusOK, Body: map[string]any{"object": "list", "url": url, "has_more": more, "data": data}}
}
