package waitagents

import (
	"strings"
	"testing"

	"github.com/waitsim/waitsim/results"
)

// TestCostIsTheLongestRead (issue 11 item 19): the read cost the tool
// predicts with is the longest read of the call so far, not the last one. A
// first list of 5 s then quick 100 ms lists, with the agent running: a
// tool that took the last read as the cost would poll until 200 ms before
// the deadline, leaving no room for a read as long as the first (the
// poll-leaves-reserve invariant), where the rule stops polling 10 s before
// it. The table's cases never shrink a non-zero read, so only a golden
// trace noticed that defect.
func TestCostIsTheLongestRead(t *testing.T) {
	_, cases, problems := loadSrc(t, `# protects: the read cost taken from the last read instead of the longest (contract §2 steps 2 and 6)
name: cost-shrinks
bridge:
  list: [5000, 100]
  read: [0]
agents:
  - {id: c, state: running}
callers:
  - name: A
    args: {timeoutMs: 30000, pollIntervalMs: 1000}
expect:
  - resolvesByMs: 30000
`)
	if len(problems) > 0 || len(cases) != 1 {
		t.Fatalf("%q", problems)
	}
	r := Reference().Run(t, &cases[0])
	if r.Verdict != results.VerdictPass {
		t.Fatalf("%s", results.FailureReport(r))
	}
	// Polls stop while a poll and the final read still fit at the longest
	// cost: no list is issued after 30000 − 2·5000 ms.
	if strings.Contains(r.Timeline, "(cost 100 ms)") {
		t.Errorf("a cost of 100 ms after a 5000 ms list:\n%s", r.Timeline)
	}
}
