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

// maxLineBytes bounds one JSON-RPC message on stdin (the SDK's own
// transport allows as much). A longer line is skipped without being held
// in memory, and answered with an error.
const maxLineBytes = 16 << 20

// stdioTransport speaks newline-delimited JSON-RPC over an agent CLI's
// stdin and stdout. Unlike the SDK's IOTransport, a line that is not a
// JSON-RPC message is answered with an error and the session goes on,
// and the end of input waits for the answers to the requests already read.
type stdioTransport struct {
	r io.Reader
	w io.Writer
}

func (t *stdioTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &lineConn{
		w:       t.w,
		lines:   make(chan inputLine),
		closed:  make(chan struct{}),
		pending: map[jsonrpc.ID]struct{}{},
		changed: make(chan struct{}),
	}
	go c.readLines(bufio.NewReaderSize(t.r, 64<<10), maxLineBytes)
	return c, nil
}

// inputLine is one line of input, or the error that ended the input.
type inputLine struct {
	text    []byte
	tooLong bool
	err     error
}

// lineConn is the mcp.Connection of stdioTransport.
type lineConn struct {
	w       io.Writer
	writeMu sync.Mutex
	lines   chan inputLine
	ended   bool // the input ended: Read only waits for the answers

	closeOnce sync.Once
	closed    chan struct{}

	mu      sync.Mutex
	pending map[jsonrpc.ID]struct{} // requests read and not yet answered
	changed chan struct{}           // closed and replaced when pending shrinks
}

// readLines sends each line of br to c.lines, then the error that ended
// the input (io.EOF at its end). A line over max bytes is not kept.
func (c *lineConn) readLines(br *bufio.Reader, max int) {
	for {
		text, tooLong, err := readLine(br, max)
		if len(text) > 0 || tooLong {
			if !c.send(inputLine{text: text, tooLong: tooLong}) {
				return
			}
		}
		if err != nil {
			c.send(inputLine{err: err})
			return
		}
	}
}

func (c *lineConn) send(l inputLine) bool {
	select {
	case c.lines <- l:
		return true
	case <-c.closed:
		return false
	}
}

// readLine reads up to the next newline; a line longer than max is read
// to its end but not kept, and reported as tooLong.
func readLine(br *bufio.Reader, max int) (text []byte, tooLong bool, err error) {
	for {
		frag, err := br.ReadSlice('\n')
		if !tooLong {
			if len(text)+len(frag) > max+1 { // +1: the newline
				tooLong, text = true, nil
			} else {
				text = append(text, frag...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return bytes.TrimSpace(text), tooLong, err
	}
}

// Read returns the next JSON-RPC message. Lines that are not one are
// answered with an error here and skipped. At the end of input it returns
// io.EOF only once every request read has been answered, so that calls
// under way finish and are answered.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for !c.ended {
		var l inputLine
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case l = <-c.lines:
		}
		if l.err != nil {
			c.ended = true
			if !errors.Is(l.err, io.EOF) {
				return nil, fmt.Errorf("read stdin: %w", l.err)
			}
			break
		}
		if msg := c.decode(l); msg != nil {
			return msg, nil
		}
	}
	return nil, c.waitAnswered(ctx)
}

// decode turns a line into a message, tracking the requests that need an
// answer; it answers a line that is not a message and returns nil.
func (c *lineConn) decode(l inputLine) jsonrpc.Message {
	if l.tooLong {
		c.writeError(jsonrpc.CodeInvalidRequest, fmt.Sprintf("a message over %d MiB was skipped", maxLineBytes>>20))
		return nil
	}
	var raw json.RawMessage
	if err := json.Unmarshal(l.text, &raw); err != nil {
		c.writeError(jsonrpc.CodeParseError, fmt.Sprintf("parse error: the line is not JSON: %v", err))
		return nil
	}
	switch l.text[0] {
	case '[':
		c.writeError(jsonrpc.CodeInvalidRequest, "JSON-RPC batches are not supported: send one message per line")
		return nil
	case '{':
	default:
		c.writeError(jsonrpc.CodeInvalidRequest, "invalid request: a JSON-RPC message is a JSON object, one per line")
		return nil
	}
	msg, err := jsonrpc.DecodeMessage(l.text)
	if err != nil {
		c.writeError(jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: %v", err))
		return nil
	}
	if req, ok := msg.(*jsonrpc.Request); ok {
		c.track(req)
	}
	return msg
}

// track notes a request that needs an answer. The SDK answers every
// request it reads, a cancelled one too (with an error).
func (c *lineConn) track(req *jsonrpc.Request) {
	if !req.ID.IsValid() {
		return
	}
	c.mu.Lock()
	c.pending[req.ID] = struct{}{}
	c.mu.Unlock()
}

func (c *lineConn) answered(id jsonrpc.ID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.pending[id]; ok {
		delete(c.pending, id)
		close(c.changed)
		c.changed = make(chan struct{})
	}
}

// waitAnswered waits until no request read is left unanswered, then
// reports the end of input.
func (c *lineConn) waitAnswered(ctx context.Context) error {
	for {
		c.mu.Lock()
		n, changed := len(c.pending), c.changed
		c.mu.Unlock()
		if n == 0 {
			return io.EOF
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-c.closed:
			return io.EOF
		case <-changed:
		}
	}
}

// Write sends msg as one line.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	err = c.writeLine(data)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.answered(resp.ID)
	}
	return err
}

// writeError answers a line that could not be read as a request: its id
// is unknown, so the answer's id is null.
func (c *lineConn) writeError(code int64, message string) {
	data, err := json.Marshal(struct {
		Version string         `json:"jsonrpc"`
		ID      *int           `json:"id"`
		Error   *jsonrpc.Error `json:"error"`
	}{"2.0", nil, &jsonrpc.Error{Code: code, Message: message}})
	if err == nil {
		_ = c.writeLine(data) // a failed write shows in the next answer's
	}
}

func (c *lineConn) writeLine(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if _, err := c.w.Write(append(data, '\n')); err != nil {
		return fmt.Errorf("write stdout: %w", err)
	}
	return nil
}

// Close stops reading; a read of stdin under way is left behind, as
// there is no portable way to interrupt it.
func (c *lineConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

// SessionID is empty: a stdio connection is its own session.
func (c *lineConn) SessionID() string { return "" }
