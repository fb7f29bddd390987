package mutants

import (
	"testing"

	"github.com/waitsim/waitsim/scenarios"
)

// TestKillSuiteEnv: the runner sets the variable the generator reads.
func TestKillSuiteEnv(t *testing.T) {
	if killSuiteEnv != scenarios.KillSuiteEnv {
		t.Fatalf("mutants sets %s, scenarios reads %s", killSuiteEnv, scenarios.KillSuiteEnv)
	}
}

// TestCaseOrderEnv: the runner writes the case order where TestTable reads it.
func TestCaseOrderEnv(t *testing.T) {
	if caseOrderEnv != scenarios.CaseOrderEnv {
		t.Fatalf("mutants sets %s, scenarios reads %s", caseOrderEnv, scenarios.CaseOrderEnv)
	}
}
