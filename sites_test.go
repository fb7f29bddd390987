package waitsim

import (
	"flag"
	"maps"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/waitsim/waitsim/hot"
	"github.com/waitsim/waitsim/results"
	"github.com/waitsim/waitsim/scenario"
)

// fakeSchemata stands for the switch file of one mutated package of a
// schemata binary (mutants/testbin/schemata.go): a switch whose setting
// resets the package (here, a cache built once, and the site 9 its
// initializer runs), and the record of the sites that ran.
var fakeSchemata = struct {
	sync.Mutex
	on     bool
	cached bool
	sites  map[int]bool
	resets int
}{sites: map[int]bool{}}

type fakeSwitch struct{}

func (fakeSwitch) String() string { return "" }
func (fakeSwitch) Get() any       { return []int{} }
func (fakeSwitch) Set(string) error {
	fakeSchemata.Lock()
	defer fakeSchemata.Unlock()
	fakeSchemata.cached = false
	fakeSchemata.resets++
	if fakeSchemata.on {
		fakeSchemata.sites[9] = true
	}
	return nil
}

type fakeSites struct{}

func (fakeSites) String() string { return "" }
func (fakeSites) Get() any {
	fakeSchemata.Lock()
	defer fakeSchemata.Unlock()
	ns := slices.Sorted(maps.Keys(fakeSchemata.sites))
	clear(fakeSchemata.sites)
	return ns
}
func (fakeSites) Set(s string) error {
	fakeSchemata.Lock()
	defer fakeSchemata.Unlock()
	fakeSchemata.on = s == "on"
	return nil
}

var registerFake sync.Once

// cachingPack runs each case through the fake package: the first case
// after a reset builds its cache (site 1); every case reads it (site 2
// only for the case named "b").
type cachingPack struct{ fakePack }

func (p *cachingPack) Run(t *testing.T, c *scenario.Case) results.CaseResult {
	fakeSchemata.Lock()
	if fakeSchemata.on {
		if !fakeSchemata.cached {
			fakeSchemata.sites[1] = true
		}
		if c.ID == "b" {
			fakeSchemata.sites[2] = true
		}
	}
	fakeSchemata.cached = true
	fakeSchemata.Unlock()
	return p.fakePack.Run(t, c)
}

// TestRecordSites: with the params' Sites, the door writes the mutation
// sites each case ran: with SitesFresh, each case from the mutated
// packages' state at init (so the case after the one that built a cache
// still reaches the code that builds it), and what a reset runs as every
// case's; without, in the table's order, from what the cases before left.
func TestRecordSites(t *testing.T) {
	registerFake.Do(func() {
		flag.Var(fakeSwitch{}, hot.SwitchFlagPrefix+"fake", "")
		flag.Var(fakeSites{}, hot.SitesFlagPrefix+"fake", "")
	})
	defer func() { _ = fakeSites{}.Set("off") }()
	dir := t.TempDir()
	writeFile(t, dir, "t.yaml", one("a", "b", "c"))
	for _, c := range []struct {
		fresh  bool
		want   map[string][]int
		before []int
		resets int
	}{
		{true, map[string][]int{"Nested/t.yaml/a": {1}, "Nested/t.yaml/b": {1, 2}, "Nested/t.yaml/c": {1}}, []int{9}, 3},
		{false, map[string][]int{"Nested/t.yaml/a": {1}, "Nested/t.yaml/b": {2}, "Nested/t.yaml/c": {}}, []int{}, 0},
	} {
		out := filepath.Join(t.TempDir(), "sites.json")
		withParams(t, results.Params{Paths: []string{dir}, Sites: out, SitesFresh: c.fresh})
		fakeSchemata.Lock()
		fakeSchemata.resets, fakeSchemata.cached = 0, false
		fakeSchemata.Unlock()
		if !nested(t, nil, func(t *testing.T) { Run(t, Params{Pack: &cachingPack{}}) }) {
			t.Fatal("the table failed")
		}
		s, err := results.ReadSites(out)
		if err != nil {
			t.Fatal(err)
		}
		if !maps.EqualFunc(s.Cases, c.want, slices.Equal) || !slices.Equal(s.Before, c.before) {
			t.Errorf("fresh %t: sites %v before %v, want %v before %v", c.fresh, s.Cases, s.Before, c.want, c.before)
		}
		if fakeSchemata.resets != c.resets {
			t.Errorf("fresh %t: %d resets for 3 cases, want %d", c.fresh, fakeSchemata.resets, c.resets)
		}
	}
}
