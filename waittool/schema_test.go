package waittool_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/packs/waitagents"

	"github.com/waitsim/waitsim/waittool"
)

// TestSchemaRejects: the SDK rejects bad input with an error result naming the
// field, before the handler runs (no bridge read is made).
func TestSchemaRejects(t *testing.T) {
	cases := []struct {
		name  string
		args  map[string]any
		field string // must appear in the error text
		extra string // and this too
	}{
		{"timeout-below-min", map[string]any{"timeoutMs": 999}, "timeoutMs", "1000"},
		{"timeout-above-max", map[string]any{"timeoutMs": 600001}, "timeoutMs", "600000"},
		{"poll-below-min", map[string]any{"pollIntervalMs": 100}, "pollIntervalMs", "250"},
		{"poll-above-max", map[string]any{"pollIntervalMs": 10001}, "pollIntervalMs", "10000"},
		{"timeout-string", map[string]any{"timeoutMs": "5000"}, "timeoutMs", "integer"},
		{"timeout-float", map[string]any{"timeoutMs": 1000.5}, "timeoutMs", "integer"},
		{"unknown-field", map[string]any{"timeoutMS": 5000}, "timeoutMS", ""},
		{"messages-zero", map[string]any{"maxMessagesPerAgent": 0}, "maxMessagesPerAgent", "1"},
		{"chars-per-message", map[string]any{"maxCharsPerMessage": 49}, "maxCharsPerMessage", "50"},
		{"chars-per-agent", map[string]any{"maxCharsPerAgent": 500001}, "maxCharsPerAgent", "500000"},
		{"total-chars", map[string]any{"maxTotalChars": 999}, "maxTotalChars", "1000"},
		{"session-ids-empty", map[string]any{"sessionIds": []any{}}, "sessionIds", ""},
		{"session-ids-type", map[string]any{"sessionIds": "a"}, "sessionIds", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, waitagents.World{Name: tc.name, Agents: running("c"), Callers: one(tc.args)})
			c := res.Call("A", 1)
			if !c.IsError {
				t.Fatalf("not rejected: reply %v", c.Raw)
			}
			if !strings.Contains(c.ErrorText, tc.field) || !strings.Contains(c.ErrorText, tc.extra) {
				t.Errorf("error %q does not name %q (%q)", c.ErrorText, tc.field, tc.extra)
			}
			if len(res.Requests) != 0 {
				t.Errorf("%d bridge requests made for rejected input", len(res.Requests))
			}
		})
	}
}

// TestPublishedSchema: every bound and default of contract §2 is visible in tools/list.
func TestPublishedSchema(t *testing.T) {
	res := run(t, waitagents.World{Name: "list", Callers: one(map[string]any{"timeoutMs": 1000})})
	if len(res.Tools) != 1 || res.Tools[0].Name != waittool.ToolName {
		t.Fatalf("tools: %v", res.Tools)
	}
	b, _ := json.Marshal(res.Tools[0].InputSchema)
	var s struct {
		Properties           map[string]map[string]any `json:"properties"`
		AdditionalProperties any                       `json:"additionalProperties"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	want := map[string][3]float64{
		"timeoutMs":           {1000, 600000, 30000},
		"pollIntervalMs":      {250, 10000, 1000},
		"maxMessagesPerAgent": {1, 100, 20},
		"maxCharsPerMessage":  {50, 100000, 4000},
		"maxCharsPerAgent":    {100, 500000, 20000},
		"maxTotalChars":       {1000, 2000000, 100000},
	}
	for name, w := range want {
		p := s.Properties[name]
		if p["type"] != "integer" || p["minimum"] != w[0] || p["maximum"] != w[1] || p["default"] != w[2] {
			t.Errorf("%s: %v, want integer min %v max %v default %v", name, p, w[0], w[1], w[2])
		}
	}
	if s.AdditionalProperties != false {
		t.Errorf("additionalProperties = %v, want false", s.AdditionalProperties)
	}
}

// TestDescriptions: the tool and timeoutMs descriptions state the 30-second
// cap, remainingMs, and to call again with it (contract §2 step 10).
func TestDescriptions(t *testing.T) {
	res := run(t, waitagents.World{Name: "desc", Callers: one(map[string]any{"timeoutMs": 1000})})
	tool := res.Tools[0]
	b, _ := json.Marshal(tool.InputSchema)
	var s struct {
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(b, &s)
	for what, d := range map[string]string{"description": tool.Description, "timeoutMs": s.Properties["timeoutMs"].Description} {
		for _, must := range []string{"30 seconds", "remainingMs", "call", "again"} {
			if !strings.Contains(strings.ToLower(d), strings.ToLower(must)) {
				t.Errorf("%s does not say %q: %q", what, must, d)
			}
		}
		if strings.Contains(strings.ToLower(d), "minute") {
			t.Errorf("%s speaks of minutes: %q", what, d)
		}
	}
}
