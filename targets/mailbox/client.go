package mailbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/targets/storytime"
)

// User is the mail user's client: each move and delete is one op in the
// history, recorded with what the user was told.
type User struct {
	Name string
	Base string // the mail API's base URL
	Rec  *history.Recorder
}

// Move asks to move message id from one folder to another; it returns the
// HTTP status (0 when no answer came).
func (u *User) Move(ctx context.Context, id, from, to string) (int, error) {
	body, _ := json.Marshal(map[string]string{"from": from, "to": to})
	in := history.Input{ShapeInput: history.ShapeInput{Message: id, From: from, To: to}}
	return u.do(ctx, history.OpMove, in, http.MethodPost, "/messages/"+id+"/move", body)
}

// Delete asks to delete message id.
func (u *User) Delete(ctx context.Context, id string) (int, error) {
	in := history.Input{ShapeInput: history.ShapeInput{Message: id}}
	return u.do(ctx, history.OpDelete, in, http.MethodDelete, "/messages/"+id, nil)
}

func (u *User) do(ctx context.Context, op string, in history.Input, method, path string, body []byte) (int, error) {
	p := u.Rec.Begin(u.Name, op, "", in)
	ctx, cancel := context.WithTimeout(ctx, storytime.D(storytime.PhoneTimeout)+5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, u.Base+path, bytes.NewReader(body))
	if err != nil {
		_ = p.Unknown()
		return 0, err
	}
	// A fresh connection per op: net/http never resends it by itself.
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Do(req)
	if err != nil {
		_ = p.Unknown()
		return 0, fmt.Errorf("%s %s: %w", op, path, err)
	}
	resp.Body.Close()
	out := history.Output{Outcome: history.OutcomeOK}
	if resp.StatusCode/100 != 2 {
		out.Outcome = history.OutcomeError
	}
	return resp.StatusCode, p.End(out)
}

// StoreOps turns the parser's delivery rows into the history's store ops
// (ground truth: one per handled delivery, at the time it was written).
func StoreOps(ds []Delivery) history.History {
	h := make(history.History, 0, len(ds))
	for _, d := range ds {
		at := d.AtNS
		h = append(h, history.Op{Process: d.Parser, Op: history.OpStore, Call: at, Return: &at,
			Input:  history.Input{ShapeInput: history.ShapeInput{Message: d.Message, Offset: history.Int64(d.Offset)}},
			Output: &history.Output{ShapeOutput: history.ShapeOutput{Stored: history.Bool(d.Stored)}}})
	}
	return h
}
