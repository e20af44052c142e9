// Package push is a fake push-notification provider with a phone screen per
// recipient. Like a real device, a notification whose replace id is already
// on the screen takes that entry's place, and anything else stacks; every
// delivery alerts (sound, vibration), replacing or not, which is why a
// replace id hides a repeat from the screen but not from the buyer's ears.
package push

import (
	"fmt"
	"sync"
)

// Notification is what a sender asks the provider to deliver.
type Notification struct {
	Recipient string `json:"recipient"`
	// ReplaceID names the thing announced (the payment id); empty means the
	// notification has no identity of its own and always stacks.
	ReplaceID string `json:"replace_id,omitempty"`
	PaymentID string `json:"payment_id,omitempty"`
	// Intent names the notice's intent when it announces no payment (a
	// logical message such as a reminder), so its notify op stays linkable.
	Intent  string `json:"intent,omitempty"`
	EventID string `json:"event_id,omitempty"`
	Title   string `json:"title,omitempty"`
	// Sender is the process that sent it (worker-1), for the history.
	Sender string `json:"sender,omitempty"`
}

// Delivery is what the provider answers: the id the notification got on the
// screen, how many notifications the recipient's screen shows after it, and
// whether the phone alerted.
type Delivery struct {
	ID       string `json:"id"`
	Replaced bool   `json:"replaced"`
	Shown    int    `json:"shown"`
	Alert    bool   `json:"alert"`
}

// Entry is one notification on a screen.
type Entry struct {
	ID           string       `json:"id"`
	Notification Notification `json:"notification"`
	// Deliveries counts how many deliveries landed on this entry.
	Deliveries int `json:"deliveries"`
}

// ScreenState is one recipient's screen and alert count.
type ScreenState struct {
	Recipient string  `json:"recipient"`
	Shown     []Entry `json:"shown"`
	Alerts    int     `json:"alerts"`
}

// Phones holds every recipient's screen. Safe for concurrent use.
type Phones struct {
	mu      sync.Mutex
	seq     int
	screens map[string]*ScreenState
	// at indexes each screen's entries by id, so a replace finds its
	// entry at once however many the screen shows.
	at map[string]map[string]int
}

// NewPhones returns phones with empty screens.
func NewPhones() *Phones {
	return &Phones{screens: map[string]*ScreenState{}, at: map[string]map[string]int{}}
}

// Deliver shows n on its recipient's screen.
func (p *Phones) Deliver(n Notification) (Delivery, error) {
	if n.Recipient == "" {
		return Delivery{}, fmt.Errorf("push: notification without recipient")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.screens[n.Recipient]
	if s == nil {
		s = &ScreenState{Recipient: n.Recipient}
		p.screens[n.Recipient] = s
		p.at[n.Recipient] = map[string]int{}
	}
	s.Alerts++
	at := p.at[n.Recipient]
	if i, ok := at[n.ReplaceID]; ok && n.ReplaceID != "" {
		s.Shown[i].Notification = n
		s.Shown[i].Deliveries++
		return Delivery{ID: n.ReplaceID, Replaced: true, Shown: len(s.Shown), Alert: true}, nil
	}
	id := n.ReplaceID
	if id == "" {
		// A device gives an untagged notification its own id; it can
		// never be replaced, so each copy stacks.
		p.seq++
		id = fmt.Sprintf("n-%d", p.seq)
	}
	at[id] = len(s.Shown)
	s.Shown = append(s.Shown, Entry{ID: id, Notification: n, Deliveries: 1})
	return Delivery{ID: id, Shown: len(s.Shown), Alert: true}, nil
}

// Screen returns a copy of recipient's screen (empty when never notified).
func (p *Phones) Screen(recipient string) ScreenState {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.screens[recipient]
	if s == nil {
		return ScreenState{Recipient: recipient, Shown: []Entry{}}
	}
	out := *s
	out.Shown = append([]Entry{}, s.Shown...)
	return out
}
