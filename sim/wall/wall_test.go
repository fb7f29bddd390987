package wall

import (
	"io"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// The wall-clock scheduler (in a synctest bubble, whose clock is fake) runs
// nothing before SetOrigin, then runs events at their times, same-time
// events in the order scheduled, and never inside At; after Stop nothing
// more runs.
func TestWallScheduler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := New(io.Discard)
		var got []string
		at := func(ms int64, name string) {
			s.At(ms, name, func() { got = append(got, name+"@"+time.Duration(s.NowMs()*int64(time.Millisecond)).String()) })
		}
		at(100, "b")
		at(0, "a")
		at(100, "c")
		time.Sleep(time.Second)
		synctest.Wait()
		if len(got) != 0 || s.NowMs() != 0 {
			t.Fatalf("before the origin: ran %v, NowMs %d", got, s.NowMs())
		}
		s.SetOrigin()
		time.Sleep(50 * time.Millisecond)
		s.SetOrigin() // a second call does not move the origin
		s.Soon("now", func() { got = append(got, "soon") })
		at(5000, "late")
		time.Sleep(time.Second)
		synctest.Wait()
		want := []string{"a@0s", "soon", "b@100ms", "c@100ms"}
		if !slices.Equal(got, want) {
			t.Fatalf("ran %v, want %v", got, want)
		}
		s.Stop()
		s.Stop() // a second Stop does nothing
		time.Sleep(10 * time.Second)
		synctest.Wait()
		if !slices.Equal(got, want) {
			t.Errorf("after Stop: ran %v, want nothing more", got)
		}
	})
}
