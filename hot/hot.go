package hot

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/waitsim/waitsim/results"
)

// Handler serves one request of its door's kind on the door's test t (it
// runs its cases as subtests of t) and returns the reply; Seq is set by
// the loop.
type Handler func(t *testing.T, req results.HotRequest) results.HotReply

// SwitchFlagPrefix starts the name of the flag that a schemata binary's
// switch file registers for each mutated package (mutants/testbin/schemata.go):
// setting it to a switch number turns that mutant on and resets the
// package's variables; its Get lists the switches reached before the first
// request.
const SwitchFlagPrefix = "waitsim.mutant."

type door struct {
	t *testing.T
	h Handler
}

var hub = struct {
	sync.Mutex
	doors map[string]door
	once  sync.Once
	done  chan struct{}
}{doors: map[string]door{}, done: make(chan struct{})}

// Serve registers the door kind and serves the hot session of pipes until
// the runner ends it; it returns then. Every door of the binary calls it
// from its own top-level test, which it makes parallel: once every test's
// sequential part has run, every door is registered and one loop serves
// them all, calling each handler with its door's t.
func Serve(t *testing.T, pipes results.HotPipes, kind string, h Handler) {
	hub.Lock()
	if _, dup := hub.doors[kind]; dup {
		hub.Unlock()
		t.Fatalf("hot: two doors of kind %q", kind)
	}
	hub.doors[kind] = door{t: t, h: h}
	hub.Unlock()
	t.Parallel() // returns when every top-level test's sequential part is done
	hub.once.Do(func() { go loop(pipes) })
	<-hub.done
}

// loop is the session: the ready reply, then request after request.
func loop(pipes results.HotPipes) {
	defer close(hub.done)
	in := os.NewFile(uintptr(pipes.In), "hot-requests")
	out := os.NewFile(uintptr(pipes.Out), "hot-replies")
	if in == nil || out == nil {
		fmt.Fprintf(os.Stderr, "hot: no pipes at fds %d and %d\n", pipes.In, pipes.Out)
		return
	}
	defer in.Close()
	defer out.Close()
	dec := json.NewDecoder(in)
	enc := json.NewEncoder(out)
	sw := switches()
	ready := results.HotReply{Reached: reached(sw)}
	hub.Lock()
	for k := range hub.doors {
		ready.Kinds = append(ready.Kinds, k)
	}
	doors := hub.doors
	hub.Unlock()
	sort.Strings(ready.Kinds)
	if err := enc.Encode(ready); err != nil {
		return
	}
	for {
		var req results.HotRequest
		if err := dec.Decode(&req); err != nil || req.Kind == results.HotExit {
			return
		}
		var rep results.HotReply
		d, ok := doors[req.Kind]
		switch {
		case !ok:
			rep.Error = fmt.Sprintf("no door of kind %q in this binary", req.Kind)
		default:
			if err := setSwitch(sw, req.Mutant); err != nil {
				rep.Error = err.Error()
				break
			}
			rep = d.h(d.t, req)
		}
		rep.Seq = req.Seq
		if err := enc.Encode(rep); err != nil {
			return
		}
	}
}

// SitesFlagPrefix starts the name of the flag that a schemata binary's
// switch file registers for each mutated package beside its switch
// (mutants/testbin/sites.go): setting it to "on" turns the recording of
// the mutation sites that run on; its Get lists the sites that ran since
// it last did.
const SitesFlagPrefix = "waitsim.sites."

// switches are the switch flags of the binary's mutated packages.
func switches() []*flag.Flag { return flags(SwitchFlagPrefix) }

// flags are the flags whose names start with prefix.
func flags(prefix string) []*flag.Flag {
	var out []*flag.Flag
	flag.VisitAll(func(f *flag.Flag) {
		if strings.HasPrefix(f.Name, prefix) {
			out = append(out, f)
		}
	})
	return out
}

// RecordSites turns on the recording of the mutation sites that run, in
// every mutated package of a schemata binary (results.Params.Sites); false
// when the binary has none.
func RecordSites() bool {
	fs := flags(SitesFlagPrefix)
	for _, f := range fs {
		if f.Value.Set("on") != nil {
			return false
		}
	}
	return len(fs) > 0
}

// Sites lists the mutation sites that ran since the last call (since
// RecordSites, for the first), sorted.
func Sites() []int { return reached(flags(SitesFlagPrefix)) }

// Reset puts every mutated package's variables back to their values at
// init, with no mutant switched on: the state a hot request's first case
// starts from.
func Reset() error { return setSwitch(switches(), 0) }

// reached lists the switches (or the sites) that the flags sw record.
func reached(sw []*flag.Flag) []int {
	seen := map[int]bool{}
	for _, f := range sw {
		if g, ok := f.Value.(flag.Getter); ok {
			if ns, ok := g.Get().([]int); ok {
				for _, n := range ns {
					seen[n] = true
				}
			}
		}
	}
	out := make([]int, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Ints(out)
	return out
}

// setSwitch turns mutant n on in every mutated package (each resets its
// variables); n 0 is the unmutated code. A binary with no switch serves
// only mutant 0.
func setSwitch(sw []*flag.Flag, n int) error {
	if len(sw) == 0 && n != 0 {
		return fmt.Errorf("mutant %d: this binary has no mutant switch", n)
	}
	for _, f := range sw {
		if err := f.Value.Set(strconv.Itoa(n)); err != nil {
			return fmt.Errorf("mutant %d: %s: %v", n, f.Name, err)
		}
	}
	return nil
}

// FullName is the go test name a test run on its own would give the
// subtest path names under the test parent (t.Name()): each element as
// the testing package writes it, never with the #01 of a name met again in
// a long-lived process.
func FullName(parent string, names ...string) string {
	var b strings.Builder
	b.WriteString(parent)
	for _, n := range names {
		b.WriteString("/")
		b.WriteString(results.TestName(n))
	}
	return b.String()
}
