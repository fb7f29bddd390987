package testrun

import (
	"strings"
	"testing"
)

// TestParseEvents: the leaf tests that failed, how many passed, the first
// failure's output.
func TestParseEvents(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"run","Test":"TestTable"}`,
		`{"Action":"output","Test":"TestTable/a","Output":"boom\n"}`,
		`{"Action":"fail","Test":"TestTable/a"}`,
		`{"Action":"pass","Test":"TestTable/b"}`,
		`{"Action":"fail","Test":"TestTable"}`,
		`not json`,
		`{"Action":"fail"}`,
	}, "\n")
	rep := ParseEvents(strings.NewReader(in))
	if len(rep.Failed) != 1 || rep.Failed[0] != "TestTable/a" || rep.Passed != 1 || !strings.Contains(rep.Output, "boom") {
		t.Fatalf("%+v", rep)
	}
}
