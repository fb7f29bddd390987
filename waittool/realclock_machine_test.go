//go:build realclock

package waittool_test

import (
	"flag"

	"github.com/waitsim/waitsim/machine"
	"github.com/waitsim/waitsim/waittool"
)

var exact = flag.Bool("realclock.exact", false, "serve the tool without the real clock's Machine (contract §2 step 12's measured delays inside a read: none), to see what it changes")

// withMachine gives the tool the real clock's Machine, unless -realclock.exact.
func withMachine(opts *waittool.Options) {
	if !*exact {
		opts.Machine = machine.Twin()
	}
}
