package serve

import (
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxHTTPSessions bounds the MCP sessions kept open over HTTP. Each holds
// some 20 KiB until its client ends it, and a client that starts a session
// per call and never ends one (or one that crashes, or a loop) would
// otherwise grow the server without bound. A team's agents need a few
// dozen at most.
const maxHTTPSessions = 256

// sessionCap makes room for a new HTTP session, when max are open, by
// closing the one least recently used (a POST is a use); its client is
// then answered 404 and, as the MCP spec asks of it, starts a new
// session.
type sessionCap struct {
	next http.Handler
	srv  *mcp.Server
	max  int

	mu   sync.Mutex
	seq  uint64
	used map[string]uint64 // open session ID → sequence number of its last POST
}

func newSessionCap(srv *mcp.Server, max int, next http.Handler) *sessionCap {
	return &sessionCap{next: next, srv: srv, max: max, used: map[string]uint64{}}
}

func (c *sessionCap) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		c.next.ServeHTTP(w, r)
		return
	}
	if id := r.Header.Get(sessionHeader); id != "" {
		c.touch(id, false)
		c.next.ServeHTTP(w, r)
		return
	}
	for _, ss := range c.victims() {
		ss.Close() // its transport leaves the SDK handler's table
	}
	c.next.ServeHTTP(&openingWriter{ResponseWriter: w, c: c}, r)
}

// openingWriter notes the session a response opens as it starts, before
// its client can use the session (the handler itself may return later).
type openingWriter struct {
	http.ResponseWriter
	c      *sessionCap
	opened bool
}

func (w *openingWriter) open() {
	if !w.opened {
		w.opened = true
		if id := w.Header().Get(sessionHeader); id != "" {
			w.c.touch(id, true)
		}
	}
}

func (w *openingWriter) WriteHeader(code int) {
	w.open()
	w.ResponseWriter.WriteHeader(code)
}

func (w *openingWriter) Write(b []byte) (int, error) {
	w.open()
	return w.ResponseWriter.Write(b)
}

func (w *openingWriter) Flush() {
	w.open()
	_ = http.NewResponseController(w.ResponseWriter).Flush() // http.Flusher has no error to return
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *openingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// sessionHeader carries the session ID of streamable HTTP.
const sessionHeader = "Mcp-Session-Id"

// touch marks a session as used now. An ID not seen opening a session is
// not kept (unless opened), so that made-up IDs cost nothing.
func (c *sessionCap) touch(id string, opened bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.used[id]; ok || opened {
		c.seq++
		c.used[id] = c.seq
	}
}

// victims returns the sessions to close so that one more fits: the least
// recently used. Sessions closed by their clients leave the table first.
// Only sessions whose opening was answered count: one whose initialize
// failed is closed by the SDK itself.
func (c *sessionCap) victims() []*mcp.ServerSession {
	c.mu.Lock() // first: a session noted open after the list is on it
	defer c.mu.Unlock()
	open := map[string]*mcp.ServerSession{}
	for ss := range c.srv.Sessions() {
		if id := ss.ID(); id != "" {
			open[id] = ss
		}
	}
	for id := range c.used {
		if open[id] == nil {
			delete(c.used, id)
		}
	}
	var out []*mcp.ServerSession
	for len(c.used) >= c.max {
		id := c.leastRecent()
		delete(c.used, id)
		out = append(out, open[id])
	}
	return out
}

// leastRecent is the ID of the session used longest ago; c.mu is held and
// c.used is not empty.
func (c *sessionCap) leastRecent() string {
	var oldest string
	var at uint64
	for id, seq := range c.used {
		if oldest == "" || seq < at || seq == at && id < oldest {
			oldest, at = id, seq
		}
	}
	return oldest
}
