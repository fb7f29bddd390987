package campaign

import (
	"encoding/json"
	"slices"
	"sort"
	"sync"

	"github.com/waitsim/waitsim/limits"
	"github.com/waitsim/waitsim/mutants/verdict"
)

// cacheVersion changes whenever the meaning of a cached verdict does.
const cacheVersion = 1

// cacheLimit bounds the number of verdicts kept.
const cacheLimit = 5000

// Verdict is one cached outcome of a mutant.
type Verdict struct {
	Status     string   `json:"status"`
	KilledBy   []string `json:"killedBy,omitempty"`
	Detail     string   `json:"detail,omitempty"`
	DurationMs int64    `json:"durationMs"`
	Seq        int64    `json:"seq"` // when it was last used; the oldest go first
	// AllKillers is true when KilledBy lists every failing case (a run
	// with --all-killers), false when it holds the first one met.
	AllKillers bool `json:"allKillers,omitempty"`
}

// Cache is the incremental cache: verdicts by cache key. A key hashes
// everything a verdict depends on (the go version and platform, the suite
// and its -run pattern, every input file of the suite's test binary except
// the mutated ones, and the mutated bytes), so a mutant whose inputs are
// unchanged since its last verdict is not run again. Timed-out verdicts are
// never cached (they depend on load), nor is anything the machine decided
// (an EnvError stops the campaign before any cache is saved). Safe for
// concurrent use.
type Cache struct {
	mu      sync.Mutex
	path    string
	seq     int64
	Entries map[string]*Verdict `json:"entries"`
	Version int                 `json:"version"`
	Seq     int64               `json:"seq"`
	// Killers holds, by mutant id, the first case that killed it the last
	// time it was killed: kill first tries that case first, also after the
	// mutant's key changed (any edit of the suite's inputs).
	Killers map[string]string `json:"killers,omitempty"`
}

// LoadCache reads the cache at path (limits.Read, a results file); a
// missing, unreadable, refused or older-version file is an empty cache.
func LoadCache(path string) *Cache {
	c := &Cache{path: path}
	if text, err := limits.Read(path, limits.Results); err == nil {
		_ = json.Unmarshal(text.Src, c)
	}
	if c.Version != cacheVersion || c.Entries == nil {
		c.Entries = map[string]*Verdict{}
		c.Killers = nil
		c.Seq = 0
	}
	c.Version = cacheVersion
	c.Seq++
	c.seq = c.Seq
	return c
}

// Get returns the verdict stored under key.
func (c *Cache) Get(key string) (Verdict, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.Entries[key]
	if !ok {
		return Verdict{}, false
	}
	v.Seq = c.seq
	return *v, true
}

// Put stores r's verdict under key (only cachedStatuses: a timed-out
// verdict is ignored).
func (c *Cache) Put(key string, r verdict.MutantResult) { c.PutRun(key, r, false) }

// cachedStatuses are the statuses a cache keeps: the verdicts that are
// properties of the mutated bytes alone. A time-out depends on load; a
// failure of the machine (EnvError) is no status at all and never gets
// here.
var cachedStatuses = []string{verdict.StatusKilled, verdict.StatusSurvived, verdict.StatusNotViable}

// PutRun is Put for a verdict whose KilledBy lists every failing case
// (allKillers) or the first one met; a kill also records r's first killer
// under r.ID (LastKiller). Only cachedStatuses are stored.
func (c *Cache) PutRun(key string, r verdict.MutantResult, allKillers bool) {
	if !slices.Contains(cachedStatuses, r.Status) || key == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.Entries[key] = &Verdict{Status: r.Status, KilledBy: r.KilledBy, Detail: r.Detail, DurationMs: r.DurationMs, Seq: c.seq,
		AllKillers: allKillers && r.Status == verdict.StatusKilled}
	if r.Status == verdict.StatusKilled && len(r.KilledBy) > 0 && r.ID != "" {
		if c.Killers == nil {
			c.Killers = map[string]string{}
		}
		c.Killers[r.ID] = r.KilledBy[0]
	}
}

// LastKiller is the first case that killed the mutant id the last time it
// was killed, or "".
func (c *Cache) LastKiller(id string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.Killers[id]
}

// Save writes the cache atomically (a temporary file renamed over it),
// keeping the cacheLimit most recently used verdicts.
func (c *Cache) Save() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.Entries) > cacheLimit {
		keys := make([]string, 0, len(c.Entries))
		for k := range c.Entries {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return c.Entries[keys[i]].Seq > c.Entries[keys[j]].Seq })
		for _, k := range keys[cacheLimit:] {
			delete(c.Entries, k)
		}
	}
	b, err := json.MarshalIndent(c, "", " ")
	if err != nil {
		return err
	}
	return WriteAtomic(c.path, b, ".mutation-cache-*")
}
