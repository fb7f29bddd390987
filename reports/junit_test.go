package reports

import (
	"bytes"
	"encoding/xml"
	"testing"
)

type xSuites struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Errors   int `xml:"errors,attr"`
	Skipped  int `xml:"skipped,attr"`
	Suites   []struct {
		Name  string `xml:"name,attr"`
		Tests int    `xml:"tests,attr"`
		Cases []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Type    string `xml:"type,attr"`
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Error *struct {
				Type string `xml:"type,attr"`
			} `xml:"error"`
			Skipped *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func TestJUnit(t *testing.T) {
	r := smallRun()
	b, err := JUnit(r)
	if err != nil {
		t.Fatal(err)
	}
	var doc xSuites
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("not well-formed: %v", err)
	}
	if len(doc.Suites) != 2 || doc.Suites[0].Name != "scenarios" || doc.Suites[1].Name != "mutants" {
		t.Fatalf("suites: %+v", doc.Suites)
	}
	if len(doc.Suites[0].Cases) != 3 || len(doc.Suites[1].Cases) != 6 || doc.Tests != 9 {
		t.Errorf("one test case per scenario and per mutant: %d + %d, total %d", len(doc.Suites[0].Cases), len(doc.Suites[1].Cases), doc.Tests)
	}
	// name → what it must carry: "failure:<type>", "error:<type>", "skipped" or "pass".
	want := map[string]string{
		"ok": "pass", "bad": "failure:assertion", "boom": "error:runtime",
		"k": "pass", "s": "failure:survived", "nv": "skipped", "to": "error:timed out", "na": "error:patch-no-longer-applies", "eq": "skipped",
	}
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			got := "pass"
			switch {
			case c.Failure != nil:
				got = "failure:" + c.Failure.Type
			case c.Error != nil:
				got = "error:" + c.Error.Type
			case c.Skipped != nil:
				got = "skipped"
			}
			if got != want[c.Name] {
				t.Errorf("%s/%s: %s, want %s", s.Name, c.Name, got, want[c.Name])
			}
			if c.Name == "bad" && (c.Failure.Message != `want <x> & got "y"` || !bytes.Contains([]byte(c.Failure.Text), []byte("repro: repro bad"))) {
				t.Errorf("failure of bad: %+v", c.Failure)
			}
		}
	}
	if doc.Failures != 2 || doc.Errors != 3 || doc.Skipped != 2 {
		t.Errorf("totals: failures %d errors %d skipped %d", doc.Failures, doc.Errors, doc.Skipped)
	}
	again, _ := JUnit(smallRun())
	if !bytes.Equal(b, again) {
		t.Error("two renders differ")
	}
	if bytes.Contains(b, []byte("time=")) {
		t.Error("no wall time may be written")
	}
}
