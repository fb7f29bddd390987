package waittool_test

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/waittool"
)

// readContract returns docs/contract.md.
func readContract(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../docs/contract.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// between returns the text of doc from the line start to the next line
// starting with end (or to the end of doc); it fails the test if start is missing.
func between(t *testing.T, doc, start, end string) string {
	t.Helper()
	i := strings.Index(doc, "\n"+start)
	if i < 0 {
		t.Fatalf("docs/contract.md has no line starting %q", start)
	}
	s := doc[i+1:]
	if j := strings.Index(s[len(start):], "\n"+end); j >= 0 {
		s = s[:len(start)+j]
	}
	return s
}

// TestContractNumbering: docs/contract.md keeps the section numbers the code
// cites: §1 to §6 in order, and steps 1 to 12 of §2's algorithm in order.
func TestContractNumbering(t *testing.T) {
	doc := readContract(t)
	var secs []string
	for _, m := range regexp.MustCompile(`(?m)^## (\d+)\. `).FindAllStringSubmatch(doc, -1) {
		secs = append(secs, m[1])
	}
	if want := []string{"1", "2", "3", "4", "5", "6"}; !slices.Equal(secs, want) {
		t.Errorf("sections %v, want %v", secs, want)
	}
	alg := between(t, doc, "### Algorithm", "### ")
	var steps []string
	for _, m := range regexp.MustCompile(`(?m)^(\d+)\. \*\*`).FindAllStringSubmatch(alg, -1) {
		steps = append(steps, m[1])
	}
	var want []string
	for i := 1; i <= 12; i++ {
		want = append(want, strconv.Itoa(i))
	}
	if !slices.Equal(steps, want) {
		t.Errorf("§2 algorithm steps %v, want %v", steps, want)
	}
}

// TestContractInputTable: every row of the input table of contract §2 gives
// the bounds and default the published input schema enforces, and the table
// has one row per schema property.
func TestContractInputTable(t *testing.T) {
	doc := readContract(t)
	schema, err := waittool.InputSchema()
	if err != nil {
		t.Fatal(err)
	}
	table := between(t, doc, "### Input", "### ")
	row := regexp.MustCompile(`(?m)^\| ([A-Za-z]+) \| ([^|]+) \| ([^|]+) \| ([^|]+) \|$`)
	seen := map[string]bool{}
	for _, m := range row.FindAllStringSubmatch(table, -1) {
		name, typ, accepted, def := m[1], strings.TrimSpace(m[2]), strings.TrimSpace(m[3]), strings.TrimSpace(m[4])
		if name == "field" {
			continue
		}
		seen[name] = true
		p, ok := schema.Properties[name]
		if !ok {
			t.Errorf("contract input table: %s is not a property of the input schema", name)
			continue
		}
		ptype := p.Type
		for _, ty := range p.Types {
			if ty != "null" {
				ptype = ty
			}
		}
		switch ptype {
		case "integer":
			if typ != "integer" {
				t.Errorf("contract input table: %s has type %q, the schema says integer", name, typ)
			}
			if p.Minimum == nil || p.Maximum == nil {
				t.Errorf("input schema: %s has no bounds", name)
				continue
			}
			if want := fmt.Sprintf("%d..%d", int(*p.Minimum), int(*p.Maximum)); !strings.HasPrefix(accepted, want) {
				t.Errorf("contract input table: %s accepts %q, the schema accepts %s", name, accepted, want)
			}
			if def != string(p.Default) {
				t.Errorf("contract input table: %s defaults to %q, the schema to %s", name, def, p.Default)
			}
		case "array":
			if typ != "array of strings" {
				t.Errorf("contract input table: %s has type %q, the schema says array", name, typ)
			}
			if p.MinItems == nil || !strings.Contains(accepted, fmt.Sprintf("at least %d item", *p.MinItems)) {
				t.Errorf("contract input table: %s accepts %q; the schema's minItems is %v", name, accepted, p.MinItems)
			}
		default:
			if typ != ptype {
				t.Errorf("contract input table: %s has type %q, the schema says %q", name, typ, ptype)
			}
		}
	}
	for name := range schema.Properties {
		if !seen[name] {
			t.Errorf("contract input table has no row for input %s", name)
		}
	}
}

// TestContractConstantsAndTexts: contract §2 states the tool's constants and
// quotes the descriptions the tool publishes (step 10) word for word.
func TestContractConstantsAndTexts(t *testing.T) {
	doc := readContract(t)
	for _, c := range []string{
		fmt.Sprintf("`CallCapMs = %d`", waittool.CallCapMs),
		fmt.Sprintf("`MinTimeoutMs = %d`", waittool.MinTimeoutMs),
		fmt.Sprintf("`MaxTimeoutMs = %d`", waittool.MaxTimeoutMs),
		fmt.Sprintf("`MachineDelayFloorMs = %d`", waittool.MachineDelayFloorMs),
		`"` + waittool.Description + `"`,
		`"` + waittool.TimeoutMsDescription + `"`,
	} {
		if !strings.Contains(doc, c) {
			t.Errorf("docs/contract.md §2 does not state %s", c)
		}
	}
}
