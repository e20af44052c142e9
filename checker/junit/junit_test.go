package junit

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
)

func TestAddCountsAndWriteParses(t *testing.T) {
	s := Suite{Name: "s", Time: Seconds(1.23456)}
	s.Add(Case{Name: "pass"})
	s.Add(Case{Name: "fail", Failure: &Message{Message: "m", Type: "double-charge", Body: "a <b> & ]]> c"}})
	s.Add(Case{Name: "err", Error: &Message{Message: "undecided"}})
	s.Add(Case{Name: "skip", Skipped: &Message{Message: "n/a"}})
	if s.Tests != 4 || s.Failures != 1 || s.Errors != 1 || s.Skipped != 1 {
		t.Fatalf("counts %+v", s)
	}
	var buf bytes.Buffer
	if err := Write(&buf, s, Suite{Name: "empty"}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), xml.Header) {
		t.Fatalf("no XML header:\n%s", buf.String())
	}
	var doc Suites
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Suites) != 2 || doc.Suites[0].Time != "1.235" || doc.Suites[0].Cases[1].Failure.Body != "a <b> & ]]> c" {
		t.Fatalf("read back %+v", doc)
	}
}
