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
