package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime/debug"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// guard makes server safe to expose to any peer: it becomes the outermost
// receiving middleware of server (so call it after every other
// AddReceivingMiddleware), and
//
//   - a tools/call whose arguments are JSON null is handled as one with no
//     arguments (go-sdk v1.8.0's schema step panics on null: it unmarshals
//     it into a nil map and the schema library assigns defaults into it);
//   - a panic while a request is handled answers that request with a
//     JSON-RPC internal error (-32603) and logs the panic and its stack to
//     logw, instead of ending the process;
//   - at most maxCalls tools/call requests are in flight at once (0:
//     DefaultMaxCalls); one more is answered at once with a JSON-RPC error
//     (before, a peer could open calls until the process ran out of memory
//     or file descriptors).
//
// A panic in a goroutine the handler starts itself is out of its reach.
func guard(server *mcp.Server, logw io.Writer, maxCalls int) {
	if maxCalls <= 0 {
		maxCalls = DefaultMaxCalls
	}
	calls := make(chan struct{}, maxCalls)
	server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
			if _, ok := req.(*mcp.CallToolRequest); ok {
				select {
				case calls <- struct{}{}:
					defer func() { <-calls }()
				default:
					return nil, &jsonrpc.Error{Code: CodeTooManyCalls, Message: fmt.Sprintf("too many tool calls in flight (at most %d): try again when one has ended", maxCalls)}
				}
			}
			defer func() {
				if v := recover(); v != nil {
					fmt.Fprintf(logw, "waitsim serve: panic while handling %s (answered with an internal error): %v\n%s", method, v, debug.Stack())
					res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("internal error while handling %s", method)}
				}
			}()
			if call, ok := req.(*mcp.CallToolRequest); ok && call.Params != nil && isNull(call.Params.Arguments) {
				call.Params.Arguments = nil
			}
			return next(ctx, method, req)
		}
	})
}

// isNull reports whether raw is the JSON literal null (white space around it
// allowed).
func isNull(raw []byte) bool {
	return bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

// CodeTooManyCalls is the JSON-RPC error code of a tools/call refused
// because MaxCalls are in flight: in the range JSON-RPC leaves to servers.
const CodeTooManyCalls = -32001

// maxExactID is the largest magnitude of a number id the SDK answers with
// the same id: it reads a number id as a float64 and answers with it as an
// int64 (go-sdk v1.8.0, jsonrpc2.MakeID), so 1.5 came back as 1 and
// 99999999999999999999999999 as -9223372036854775808, and past 2^53 a
// float64 no longer holds every integer.
const maxExactID = 1 << 53

// badID says why the id of the JSON-RPC message msg (one JSON object) is
// one the SDK would answer with another ("" when it is not): a number that
// is not an integer, or one past maxExactID in size. A client could not
// match such an answer to its request.
func badID(msg []byte) string {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(msg, &m) != nil || len(m.ID) == 0 {
		return ""
	}
	raw := string(bytes.TrimSpace(m.ID))
	if raw == "" || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return "" // a string, null, or no number
	}
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || n > maxExactID || n < -maxExactID {
		return fmt.Sprintf("id %.40s: a number id must be an integer from -2^53 to 2^53 (the server would answer with another id)", raw)
	}
	return ""
}
