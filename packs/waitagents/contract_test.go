package waitagents

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/check"
)

// TestContractListsInvariants: the invariants table of docs/contract.md §2
// has one row for every invariant id the table checks, and no other.
func TestContractListsInvariants(t *testing.T) {
	b, err := os.ReadFile("../../docs/contract.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, "\n### Invariants\n")
	end := strings.Index(doc, "\n## 3. ")
	if start < 0 || end < start {
		t.Fatal("docs/contract.md has no \"### Invariants\" subsection in §2")
	}
	var listed []string
	row := regexp.MustCompile("(?m)^\\| `([a-z0-9-]+)` \\| \\S")
	for _, m := range row.FindAllStringSubmatch(doc[start:end], -1) {
		if slices.Contains(listed, m[1]) {
			t.Errorf("docs/contract.md lists invariant %s twice", m[1])
		}
		listed = append(listed, m[1])
	}
	var ids []string
	for _, inv := range append(slices.Clone(check.Invariants), Invariants...) {
		ids = append(ids, inv.ID)
		if !slices.Contains(listed, inv.ID) {
			t.Errorf("docs/contract.md §2 (Invariants) has no row for invariant %s", inv.ID)
		}
	}
	for _, id := range listed {
		if !slices.Contains(ids, id) {
			t.Errorf("docs/contract.md §2 (Invariants) lists %s, which is not an invariant", id)
		}
	}
}

// TestContractTexts: the texts the invariants and the model compare replies,
// notifications and descriptions with exactly are those docs/contract.md
// spells out, word for word: step 10's two descriptions, step 11's progress
// message, step 9's "bridge panic: …" and "orchestration_unavailable".
func TestContractTexts(t *testing.T) {
	b, err := os.ReadFile("../../docs/contract.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	quoted := func(re string) string {
		t.Helper()
		m := regexp.MustCompile(re).FindStringSubmatch(doc)
		if m == nil {
			t.Fatalf("docs/contract.md has no text matching %s", re)
		}
		return m[1]
	}
	tool, timeout := contractDescriptions(ReferenceContract)
	if want := quoted("(?m)^    - tool: \"([^\"]+)\"$"); tool != want {
		t.Errorf("the tool description the pack wants is\n%q\nthe contract's (step 10)\n%q", tool, want)
	}
	if want := quoted("(?m)^    - `timeoutMs`: \"([^\"]+)\"$"); timeout != want {
		t.Errorf("the timeoutMs description the pack wants is\n%q\nthe contract's (step 10)\n%q", timeout, want)
	}
	if got, want := strings.NewReplacer("%d ms of %d", "E ms of C").Replace(progressMessage), quoted(`the message reads "([^"]+)"`); got != want {
		t.Errorf("the progress message the model wants is %q, the contract's (step 11) %q", got, want)
	}
	if got, want := panicPrefix+"…", quoted("with the message `(bridge panic: …)`"); got != want {
		t.Errorf("the panic message the model wants is %q, the contract's (step 9) %q", got, want)
	}
	if got, want := unavailableError, quoted("`error: \"([a-z_]+)\"`"); got != want {
		t.Errorf("the error the model wants without a bridge is %q, the contract's (step 9) %q", got, want)
	}
	// Another cap, other bounds: the same texts with the implementation's figures.
	k := Contract{CapMs: 1000, MinTimeoutMs: 500, MaxTimeoutMs: 9000, DefaultTimeoutMs: 2000}.withDefaults()
	tool, timeout = contractDescriptions(k)
	if !strings.Contains(tool, "One call waits at most 1 second (1000 ms), whatever") || !strings.Contains(timeout, "(500 to 9000, default 2000). One call waits at most 1 second;") {
		t.Errorf("with a cap of 1000 ms and timeoutMs 500..9000, default 2000: %q, %q", tool, timeout)
	}
	if tool, _ = contractDescriptions(Contract{CapMs: 2500}.withDefaults()); !strings.Contains(tool, "at most 2.5 seconds (2500 ms),") {
		t.Errorf("with a cap of 2500 ms: %q", tool)
	}
}
