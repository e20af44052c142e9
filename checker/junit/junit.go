// Package junit writes JUnit XML, the one writer behind `idemcheck check
// --junit` (checker) and `idemcheck run --junit` (conform/report): a CI
// dashboard reads both the same way.
package junit

import (
	"encoding/xml"
	"io"
	"strconv"
)

// Suites is the document: one <testsuites> holding each Suite.
type Suites struct {
	XMLName xml.Name `xml:"testsuites"`
	Suites  []Suite  `xml:"testsuite"`
}

// Suite is one <testsuite>; Add keeps its counts.
type Suite struct {
	Name     string `xml:"name,attr"`
	Tests    int    `xml:"tests,attr"`
	Failures int    `xml:"failures,attr"`
	Errors   int    `xml:"errors,attr"`
	Skipped  int    `xml:"skipped,attr"`
	Time     string `xml:"time,attr"`
	Cases    []Case `xml:"testcase"`
}

// Case is one <testcase>: passing, or with one of Failure (the property
// does not hold), Error (it could not be decided) or Skipped.
type Case struct {
	Name      string   `xml:"name,attr"`
	Classname string   `xml:"classname,attr"`
	Time      string   `xml:"time,attr"`
	Failure   *Message `xml:"failure,omitempty"`
	Error     *Message `xml:"error,omitempty"`
	Skipped   *Message `xml:"skipped,omitempty"`
	SystemOut string   `xml:"system-out,omitempty"`
}

// Message is a failure's, error's or skip's message and text.
type Message struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Body    string `xml:",cdata"`
}

// Seconds spells a duration in seconds the way JUnit's time attributes do.
func Seconds(s float64) string { return strconv.FormatFloat(s, 'f', 3, 64) }

// Add appends c and counts it as a test and, when it has one, a failure,
// error or skip.
func (s *Suite) Add(c Case) {
	s.Tests++
	switch {
	case c.Failure != nil:
		s.Failures++
	case c.Error != nil:
		s.Errors++
	case c.Skipped != nil:
		s.Skipped++
	}
	s.Cases = append(s.Cases, c)
}

// Write writes the document holding suites, indented, with the XML header.
func Write(w io.Writer, suites ...Suite) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(Suites{Suites: suites}); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
