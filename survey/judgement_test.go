package survey

import "testing"

// TestQuoteDropsTheQuotedPagesLinks: a link inside a quoted README points
// into that README; in the table it would be a link to nowhere.
func TestQuoteDropsTheQuotedPagesLinks(t *testing.T) {
	got := quote(&Quote{Text: "Its claim expires on a [lease](#glossary), and a [fencing token](#glossary) makes", Link: "https://pypi.org/project/idemkit/1.0.2/"}, "docs")
	want := `"Its claim expires on a lease, and a fencing token makes" ([docs](https://pypi.org/project/idemkit/1.0.2/))`
	if got != want {
		t.Errorf("quote\n got %s\nwant %s", got, want)
	}
}
