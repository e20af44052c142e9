package stripe

import (
	"encoding/hex"
	"fmt"
	"sync"
)

// eventID is an event's id as the 9 bytes its 18 hexadecimal digits spell
// (newID's 6-byte sequence, then its 3 random bytes): a soak keeps one per
// event, and 9 bytes in the event cost less than a 24-byte string beside it.
type eventID [9]byte

const eventPrefix = "evt_"

// parseEventID is id's compact form; false for anything newID("evt") does
// not make, an upper-case digit included (that is another id, and must
// not find this one).
func parseEventID(id string) (eventID, bool) {
	var e eventID
	if len(id) != len(eventPrefix)+2*len(e) || id[:len(eventPrefix)] != eventPrefix {
		return e, false
	}
	if _, err := hex.Decode(e[:], []byte(id[len(eventPrefix):])); err != nil {
		return e, false
	}
	return e, e.String() == id
}

// mustEventID is the compact form of an id newID("evt") just made; one it
// cannot parse is a bug in newID, never an event with another id.
func mustEventID(id string) eventID {
	e, ok := parseEventID(id)
	if !ok {
		panic(fmt.Sprintf("fakepsp/stripe: newID made an event id %q that is not evt_ and 18 hex digits", id))
	}
	return e
}

func (e eventID) String() string { return eventPrefix + hex.EncodeToString(e[:]) }

// word is a string of a small vocabulary (event types, fault targets' ops:
// the PSP's own constants) by its place in words, 2 bytes where a string
// header is 16.
type word uint16

var words struct {
	mu  sync.RWMutex
	ids map[string]word
	all []string
}

// wordOf is s's word, s added to the vocabulary the first time. The
// vocabulary is the code's constants, a few dozen; past 65,536 words a
// word would name another string, so that panics instead.
func wordOf(s string) word {
	words.mu.RLock()
	w, ok := words.ids[s]
	words.mu.RUnlock()
	if ok {
		return w
	}
	words.mu.Lock()
	defer words.mu.Unlock()
	if w, ok := words.ids[s]; ok {
		return w
	}
	if len(words.all) > int(^word(0)) {
		panic(fmt.Sprintf("fakepsp/stripe: more than %d distinct event types and ops (adding %q)", int(^word(0))+1, s))
	}
	if words.ids == nil {
		words.ids = map[string]word{}
	}
	w = word(len(words.all))
	words.ids[s] = w
	words.all = append(words.all, s)
	return w
}

func (w word) String() string {
	words.mu.RLock()
	defer words.mu.RUnlock()
	return words.all[w]
}
