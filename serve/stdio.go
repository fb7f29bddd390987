package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// JSON-RPC 2.0's error codes for a line that is no request (§5.1).
const (
	codeParseError     = -32700 // not JSON
	codeInvalidRequest = -32600 // JSON, but not one JSON-RPC message
)

// stdioLines stands between stdin and the SDK's stdio transport, which ends
// the whole session at the first line it cannot decode (a line of garbage
// took `waitsim serve` down with its calls in flight, exit 1). Each line
// that is one JSON-RPC message passes on; any other is answered on stdout
// with a JSON-RPC error whose id is null (parse error for a line that is
// not JSON, invalid request for JSON that is not one message — a batch
// too: MCP 2025-06-18 and later have none), logged with its line number,
// and the server goes on. A line longer than the transport's limit
// (mcp.DefaultMaxLineLength) is answered the same way and skipped without
// being held whole.
type stdioLines struct {
	in   *bufio.Reader
	out  *lockedWriter
	win  *replyWindow // the calls whose reply is not written yet
	log  io.Writer
	line int
	buf  []byte // the part of a passed line the SDK has not read yet
	err  error  // stdin's end, once reached
}

// lockedWriter serializes writes to stdout: the SDK writes each message in
// one Write, and stdioLines' answers go between them, never inside one.
type lockedWriter struct {
	mu  sync.Mutex
	w   io.Writer
	win *replyWindow // given back a place for each reply written
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	n, err := l.w.Write(p)
	l.mu.Unlock()
	if l.win != nil {
		if err != nil {
			l.win.close()
		} else {
			l.win.written(p)
		}
	}
	return n, err
}

// Close is the transport's: stdout stays open for the process.
func (l *lockedWriter) Close() error { return nil }

// stdioTransport is the SDK's stdio transport over in and out, with every
// line of in checked first (stdioLines) and at most maxCalls tools/call
// requests passed on whose reply is not written yet (replyWindow).
// The window closes when ctx is done, so that no read waits on it then.
func stdioTransport(ctx context.Context, in io.Reader, out io.Writer, log io.Writer, maxCalls int) *mcp.IOTransport {
	win := newReplyWindow(maxCalls)
	context.AfterFunc(ctx, win.close)
	w := &lockedWriter{w: out, win: win}
	return &mcp.IOTransport{Reader: io.NopCloser(&stdioLines{in: bufio.NewReaderSize(in, 64<<10), out: w, win: win, log: log}), Writer: w}
}

func (s *stdioLines) Read(p []byte) (int, error) {
	for len(s.buf) == 0 {
		if s.err != nil {
			return 0, s.err
		}
		line, err := s.next()
		if err != nil {
			s.err = err
		}
		s.buf = line
	}
	n := copy(p, s.buf)
	s.buf = s.buf[n:]
	return n, nil
}

// next reads the next line and returns it (with its line break) when it
// is one JSON-RPC message; otherwise it answers it and returns nothing.
func (s *stdioLines) next() ([]byte, error) {
	var line []byte
	for {
		chunk, err := s.in.ReadSlice('\n')
		if len(line)+len(chunk) > mcp.DefaultMaxLineLength {
			s.line++
			s.refuse(codeInvalidRequest, fmt.Sprintf("a line longer than %d bytes", mcp.DefaultMaxLineLength))
			return nil, s.skip(err)
		}
		line = append(line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if len(line) > 0 {
			s.line++
		}
		if err != nil && len(bytes.TrimSpace(line)) == 0 {
			return nil, err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			return nil, nil
		}
		msg, code, why := check(bytes.TrimSpace(line))
		if code != 0 {
			s.refuse(code, why)
			return nil, err
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() && s.win.inFlightID(req.ID.Raw()) {
			// The SDK drops a request whose id is in flight without a
			// word, and its place would never come back.
			s.refuse(codeInvalidRequest, fmt.Sprintf("id %v is already in flight: a request id must be unique among the requests in flight", req.ID.Raw()))
			return nil, err
		}
		if !s.win.read(msg) {
			return nil, io.ErrClosedPipe // stdout failed: nothing more can be answered
		}
		if line[len(line)-1] != '\n' {
			line = append(line, '\n')
		}
		return line, err
	}
}

// skip drops the rest of an overlong line; err is the last read's.
func (s *stdioLines) skip(err error) error {
	for errors.Is(err, bufio.ErrBufferFull) {
		_, err = s.in.ReadSlice('\n')
	}
	return err
}

// check returns the JSON-RPC message a line is, or says why it is none
// (code 0 when it is one).
func check(line []byte) (msg jsonrpc.Message, code int, why string) {
	if !json.Valid(line) {
		return nil, codeParseError, "not JSON"
	}
	if line[0] == '[' {
		return nil, codeInvalidRequest, "a JSON-RPC batch (MCP has none since 2025-06-18)"
	}
	if why := badID(line); why != "" {
		return nil, codeInvalidRequest, why
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return nil, codeInvalidRequest, err.Error()
	}
	return msg, 0, ""
}

// refuse answers the current line with a JSON-RPC error (id null) and logs it.
func (s *stdioLines) refuse(code int, why string) {
	msg := "Parse error"
	if code == codeInvalidRequest {
		msg = "Invalid Request"
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil,
		"error": map[string]any{"code": code, "message": fmt.Sprintf("%s: stdin line %d: %s", msg, s.line, why)}})
	_, _ = s.out.Write(append(b, '\n'))
	fmt.Fprintf(s.log, "waitsim serve: stdin line %d refused (%s: %s)\n", s.line, msg, why)
}
