package model

import (
	"sort"
	"strings"

	"github.com/waitsim/waitsim/results"
)

// SurvivalRow is one line of the survival matrix (contract §6): every call of
// the scenario results with the same tool cap, progress token, transport
// mode, proxy idle timeout and client profile, and how many of their replies
// survived (reached the caller) or were lost, with what lost them.
type SurvivalRow struct {
	CapMs    int64          `json:"capMs"`
	Progress bool           `json:"progress"`
	Mode     string         `json:"mode"`
	ProxyMs  int64          `json:"proxyMs"` // 0: no proxy
	Profile  string         `json:"profile"` // "": the caller's own knobs
	Survived int            `json:"survived"`
	Lost     int            `json:"lost"`
	LostBy   map[string]int `json:"lostBy,omitempty"` // cause → calls
}

// Survival computes the survival matrix from scenario results: one row per
// combination that occurs, in the order cap, mode, proxy, profile, progress.
// A call with an error result counts as survived (its reply reached the
// caller). Results without wire dimensions (older runs) give no rows.
func Survival(s *results.RunResult) []SurvivalRow {
	if s == nil {
		return nil
	}
	type key struct {
		capMs, proxy  int64
		progress      bool
		mode, profile string
	}
	rows := map[key]*SurvivalRow{}
	for _, c := range s.Cases {
		for _, call := range c.Calls {
			d := call.Wire
			if d == nil {
				continue
			}
			k := key{d.CapMs, d.ProxyMs, d.Progress, d.Mode, d.Profile}
			r := rows[k]
			if r == nil {
				r = &SurvivalRow{CapMs: d.CapMs, Progress: d.Progress, Mode: d.Mode, ProxyMs: d.ProxyMs, Profile: d.Profile}
				rows[k] = r
			}
			if !call.Lost {
				r.Survived++
				continue
			}
			r.Lost++
			if r.LostBy == nil {
				r.LostBy = map[string]int{}
			}
			r.LostBy[lossCause(call.LostBy)]++
		}
	}
	out := make([]SurvivalRow, 0, len(rows))
	for _, r := range rows {
		out = append(out, *r)
	}
	modeRank := map[string]int{"memory": 0, "sse": 1, "json": 2, "stateless-sse": 3, "stateless-json": 4}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		switch {
		case a.CapMs != b.CapMs:
			return a.CapMs < b.CapMs
		case a.Mode != b.Mode:
			return modeRank[a.Mode] < modeRank[b.Mode]
		case a.ProxyMs != b.ProxyMs:
			return a.ProxyMs < b.ProxyMs
		case a.Profile != b.Profile:
			return a.Profile < b.Profile
		}
		return !a.Progress && b.Progress
	})
	return out
}

// lossCause shortens a CallSummary.LostBy to its kind: "request timeout",
// "proxy idle timeout", "server write timeout", "connection dropped",
// "session failed" (or the text itself when it is none of these).
func lossCause(lostBy string) string {
	for _, k := range []string{"request timeout", "proxy idle timeout", "server write timeout", "connection dropped", "session failed"} {
		if strings.HasPrefix(lostBy, k) {
			return k
		}
	}
	if lostBy == "" {
		return "lost"
	}
	return lostBy
}
