package slowtool_test

import (
	"testing"

	"example.com/slowtool"
	"github.com/waitsim/waitsim"
)

// TestWaitsim runs slow_job through waitsim: every scenario file under
// testdata/waitsim is a subtest, in virtual time (90 s of work take
// milliseconds), behind the clients, transports and proxies the files name.
func TestWaitsim(t *testing.T) {
	waitsim.Run(t, waitsim.Params{Tool: slowtool.Register, Golden: "testdata/golden"})
}
