package verdict

import (
	"strings"
	"testing"
)

// TestCheckRefusesMultiLineID: a mutant id with a line break, a control
// or a format character is refused naming the field (it goes into logs,
// annotations and merge's messages as it is).
func TestCheckRefusesMultiLineID(t *testing.T) {
	for _, id := range []string{"a\n::error::forged", "a\rb", "a\u202eb"} {
		r := &Result{Version: ResultVersion, Mutants: []MutantResult{{ID: "sanity", Source: SourceSanity, Status: StatusKilled}, {ID: id, Source: SourceCatalog, Status: StatusKilled}}}
		Evaluate(r)
		if err := r.Check(); err == nil || !strings.Contains(err.Error(), "mutants[1].id") {
			t.Errorf("id %q: %v, want an error naming mutants[1].id", id, err)
		}
	}
}
