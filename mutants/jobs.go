package mutants

import (
	"context"
	"slices"
	"sync"

	"github.com/waitsim/waitsim/mutants/verdict"
)

// jobs is runAll's queue of parts to run: each mutant's table run and,
// when the generator campaign is asked for, its generator run. The
// generator's run of a mutant of the schemata binary is queued as its table
// run starts, and any worker free of work takes it: a survivor's whole table
// and its whole generator run side by side instead of one after the other.
// The parts run in no fixed order; none decides another's verdict.
type jobs struct {
	mu      sync.Mutex
	cond    *sync.Cond
	tables  []*mutant // mutants whose table run has not started
	gens    []*mutant // generator runs to start once the generator's baseline is over
	running int       // parts started and not over
	genDone <-chan struct{}
}

// job is one part: m's table run, or (gen) its generator run; cold when
// m's table run already lost its hot process (a panic that ends the
// process would end another one: its generator runs in a process of its
// own, without the restart).
type job struct {
	m    *mutant
	gen  bool
	cold bool
}

// newJobs queues the table runs of queue, in its order; genDone is closed
// when the generator's baseline run is over (runner.gen.done).
func newJobs(queue []*mutant, genDone <-chan struct{}) *jobs {
	q := &jobs{tables: append([]*mutant(nil), queue...), genDone: genDone}
	q.cond = sync.NewCond(&q.mu)
	go func() {
		<-genDone
		q.mu.Lock()
		defer q.mu.Unlock()
		q.cond.Broadcast()
	}()
	return q
}

// next hands out the next part: a generator run whose table run is over
// (once the generator's baseline is), then a table run, then a generator
// run beside its own table run (the campaign's tail: a survivor runs its
// whole table and its whole generator run at once). Each mutant thus ends
// soon after its table run, and a generator run that crashes the hot
// process rarely meets a table run that just did. It waits while there is
// none but a running part may still queue one; false once nothing is left
// or ctx is done. The caller ends the part with over, under mu.
func (q *jobs) next(ctx context.Context) (job, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		if ctx.Err() != nil {
			return job{}, false
		}
		genReady := closed(q.genDone)
		if i := slices.IndexFunc(q.gens, func(m *mutant) bool { return m.tableDone }); genReady && i >= 0 {
			return q.takeGen(i), true
		}
		if len(q.tables) > 0 {
			m := q.tables[0]
			q.tables = q.tables[1:]
			q.running++
			return job{m: m}, true
		}
		if genReady && len(q.gens) > 0 {
			return q.takeGen(0), true
		}
		if len(q.gens) == 0 && q.running == 0 {
			return job{}, false
		}
		q.cond.Wait()
	}
}

// takeGen hands out the generator run q.gens[i].
func (q *jobs) takeGen(i int) job {
	m := q.gens[i]
	q.gens = slices.Delete(q.gens, i, i+1)
	q.running++
	return job{m: m, gen: true, cold: m.tableDone && m.hotLost}
}

// over ends a part handed out by next (under mu).
func (q *jobs) over() {
	q.running--
	q.cond.Broadcast()
}

// wake wakes every worker waiting in next (ctx done).
func (q *jobs) wake() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.cond.Broadcast()
}

func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// genOutcome is a mutant's generator run, kept apart from its result
// while its table may still be running (mergeGen joins them).
type genOutcome struct {
	ran    bool
	status string
	detail string
	ms     int64
}

// genAsked reports whether m gets a generator run if the generator's
// baseline turns the campaign on (genWanted decides once it has).
func (r *runner) genAsked(m *mutant) bool {
	return r.cfg.GenWorlds > 0 && m.res.Source != verdict.SourceSanity && m.equiv == nil
}

// genPart runs the generator on m (genRun) once its baseline is over:
// nothing when m's table run never built it a binary (not viable).
func (r *runner) genPart(ctx context.Context, wk *worker, m *mutant, cold bool) error {
	r.waitGen()
	if r.gen.err != nil {
		return r.gen.err
	}
	if m.genBin == "" {
		return nil
	}
	return r.genRun(ctx, wk, m, cold)
}

// mergeGen joins m's generator run to its result, once both parts are
// over: a mutant its table run found not viable has no generator verdict.
func (r *runner) mergeGen(m *mutant) {
	g := m.gen
	if !g.ran || m.res.Status == verdict.StatusNotViable {
		return
	}
	m.res.Generator, m.res.GeneratorDetail, m.res.GeneratorMs = g.status, g.detail, g.ms
	m.res.DurationMs += g.ms
}
