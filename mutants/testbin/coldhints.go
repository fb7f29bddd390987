package testbin

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"sync"

	"github.com/waitsim/waitsim/limits"
	"github.com/waitsim/waitsim/mutants/campaign"
	"github.com/waitsim/waitsim/suitebin"
)

// Cold hints (issue 21 item 1). A mutant whose switch makes a hot process
// die (a panic in a world's goroutine, which nothing can recover) costs its
// worker that process: the mutant is judged by a cold run anyway, and the
// next mutant waits for a new process to start. Measured on this module's
// campaign (2 cores, 3 December 2026): 14 hot processes died in a campaign
// of 107 mutants, each after 7–41 ms of its request, and each new process
// took 23–50 ms to come up.
//
// A campaign keeps which mutants did so, and the next campaign of the same
// suite and target runs them cold from the start: their process lives on.
// A hint decides no verdict — a mutant's cold and hot runs give the same
// verdict (TestHotSameVerdicts) — so it is keyed by the mutant's own text
// alone (its id and its diff, context lines included), not by the suite's
// inputs: it outlives an edit elsewhere, which is when a pull request's
// campaign runs. A stale hint costs a cold run; a hinted mutant whose cold
// runs no longer panic loses its hint.

// coldHintsVersion changes whenever the meaning of a kept hint does.
const coldHintsVersion = "waitsim-cold-hints-v1"

// coldHintsMost bounds the hints one file keeps (a hint is 32 bytes of
// hex): far more than the mutants of a campaign that panic.
const coldHintsMost = 4096

// ColdHints are the kept hints of one suite package and target: which
// mutants ran cold from the start because a hot process died on them
// before. Safe for concurrent use; a nil *ColdHints holds none and keeps
// none.
type ColdHints struct {
	path string
	glob string // every hint file of the suite's package
	mu   sync.Mutex
	was  map[string]bool // read at load
	now  map[string]bool // what Save writes
}

// ColdHints reads the hints kept for the suite's package (g.Pkg) and
// target in g.KeptDir; none when there is no directory or no readable file.
func (g *Go) ColdHints(target string) *ColdHints {
	if g.KeptDir == "" {
		return nil
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s", coldHintsVersion, g.Root, g.Pkg, target)
	prefix := filepath.Join(g.KeptDir, g.keptName("coldhints"))
	c := &ColdHints{path: prefix + "-" + hex.EncodeToString(h.Sum(nil))[:32] + ".json", glob: prefix + "-*.json",
		was: map[string]bool{}, now: map[string]bool{}}
	var keys []string
	if text, err := limits.Read(c.path, limits.Results); err == nil && json.Unmarshal(text.Src, &keys) == nil {
		for _, k := range keys[:min(len(keys), coldHintsMost)] {
			c.was[k], c.now[k] = true, true
		}
	}
	return c
}

// coldKey is the hint key of the mutant id whose diff is diff.
func coldKey(id, diff string) string {
	s := sha256.Sum256([]byte(id + "\x00" + diff))
	return hex.EncodeToString(s[:16])
}

// Has reports whether the mutant (id, diff) is hinted to run cold.
func (c *ColdHints) Has(id, diff string) bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.was[coldKey(id, diff)]
}

// Died records that a hot process died serving the mutant (id, diff).
func (c *ColdHints) Died(id, diff string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now[coldKey(id, diff)] = true
}

// Calm records that the hinted mutant (id, diff) ran cold without a panic:
// its hint goes, and the next campaign tries it hot again.
func (c *ColdHints) Calm(id, diff string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.now, coldKey(id, diff))
}

// Save keeps the hints for the next campaign when they changed, and prunes
// the hint files of the suite's package beyond the keptKeep most recently
// written; false when they could not be kept (the next campaign then
// tries those mutants hot) or there are none (nil).
func (c *ColdHints) Save() bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	same := len(c.now) == len(c.was)
	for k := range c.now {
		same = same && c.was[k]
	}
	if same {
		return true
	}
	keys := make([]string, 0, len(c.now))
	for k := range c.now {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b, err := json.Marshal(keys[:min(len(keys), coldHintsMost)])
	if err != nil || campaign.WriteAtomic(c.path, b, suitebin.TempHints+"*") != nil {
		return false
	}
	suitebin.PruneGlob(c.glob, c.path, keptKeep)
	return true
}
