package check

import (
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/waitsim/waitsim/scenario"
)

// Server is what a pack implements when it can serve a case to real
// clients on the real clock (`waitsim serve`, through the door): the pack
// decides what server a case gets, as it decides what world a case runs in.
type Server interface {
	// NewServer builds the MCP server of case c on the real clock: the
	// tools under test registered, with what the case sets of the world
	// they run in (for a contract pack: its bridge, roster changes and
	// cap). Its times count from the server's first tools/call, so that a
	// client sees the timeline the simulation predicts for a caller
	// starting at 0. log receives the server's account of itself, one line
	// per Write (times in ms since the first call), from many goroutines at
	// once (it must be safe for that, as serve.Log is). stop releases what it
	// started; call it once the server is done. A case the tools cannot
	// serve is an error (nothing started).
	NewServer(c *scenario.Case, log io.Writer) (s *mcp.Server, stop func(), err error)
}

// ServerImplementation is the name and version a served server gives its
// clients (initialize's serverInfo).
func ServerImplementation() *mcp.Implementation {
	return &mcp.Implementation{Name: "waitsim", Version: "serve"}
}

var _ Server = Generic{}

// NewServer implements Server: the tools Register registers, on a fresh
// server, as they are (outside a bubble package time is the real clock).
// A generic case's world holds nothing a server needs (callers,
// transports and expectations are the clients'); log is not used.
func (g Generic) NewServer(_ *scenario.Case, _ io.Writer) (*mcp.Server, func(), error) {
	s := mcp.NewServer(ServerImplementation(), nil)
	g.Register(s)
	return s, func() {}, nil
}
