package serve

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmemhq/tmem/layout/layouttest"
)

// exampleService serves a copy of the bundled example workspace, BM25
// only, unbound.
func exampleService(t *testing.T) *Service {
	t.Helper()
	return serviceOf(t, layouttest.Copy(t, filepath.Join("..", "..", "..", "testdata", "example", ".teammates")), "")
}

// connectHTTP starts an MCP session with the SDK's client.
func connectHTTP(t *testing.T, url string) *mcp.ClientSession {
	t.Helper()
	cl := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil)
	cs, err := cl.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// listWorks reports whether a memory_list call on cs is answered.
func listWorks(t *testing.T, cs *mcp.ClientSession) bool {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "memory_list", Arguments: map[string]any{"kind": "soul"}})
	if err != nil {
		return false
	}
	if res.IsError {
		t.Fatalf("memory_list: %v", res.Content)
	}
	return true
}

// foreignInitialize sends an initialize naming a foreign host, as a page
// under DNS rebinding does, and checks it is refused.
func foreignInitialize(t *testing.T, url string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = "attacker.example"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a foreign host got status %d, want 403", resp.StatusCode)
	}
}

// TestHTTPSessionCap opens more sessions than the server keeps, as a
// client that starts one per call and never ends it does: the server
// keeps at most its cap open, and closes the least recently used ones.
// Requests refused for a foreign host close none.
func TestHTTPSessionCap(t *testing.T) {
	const max = 3
	srv := exampleService(t).Server()
	hs := httptest.NewServer(httpHandler(srv, "", max))
	t.Cleanup(hs.Close)
	url := hs.URL + HTTPPath

	var sessions []*mcp.ClientSession
	for i := 0; i < 3; i++ {
		sessions = append(sessions, connectHTTP(t, url))
	}
	listWorks(t, sessions[0]) // the first is now the most recently used
	for i := 0; i < 2; i++ {
		sessions = append(sessions, connectHTTP(t, url))
	}
	for i := 0; i < max; i++ { // a rebinding page's requests make no room
		foreignInitialize(t, hs.URL+HTTPPath)
	}
	tests := []struct {
		session int
		open    bool
	}{
		{0, true}, {1, false}, {2, false}, {3, true}, {4, true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("session %d", tt.session), func(t *testing.T) {
			if got := listWorks(t, sessions[tt.session]); got != tt.open {
				t.Errorf("answered: %v, want %v", got, tt.open)
			}
		})
	}
	t.Run("sessions kept", func(t *testing.T) {
		n := 0
		for range srv.Sessions() {
			n++
		}
		if n > max {
			t.Errorf("%d sessions open, want at most %d", n, max)
		}
	})
}

// closedByServer reports whether the server closes conn (after answering
// or not) within a minute, far past the limits under test.
func closedByServer(t *testing.T, conn net.Conn) bool {
	t.Helper()
	if err := conn.SetReadDeadline(time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	_, err := io.Copy(io.Discard, conn)
	var ne net.Error
	return !errors.As(err, &ne) || !ne.Timeout()
}

// TestHTTPLimits checks that a client that never finishes its request,
// or leaves its connection idle, does not hold the connection for good,
// and that a session works within the limits.
func TestHTTPLimits(t *testing.T) {
	svc := exampleService(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		lim := httpLimits{header: 200 * time.Millisecond, body: 200 * time.Millisecond, idle: 200 * time.Millisecond, grace: time.Minute}
		done <- svc.runHTTP(ctx, ln, "", lim)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("runHTTP: %v", err)
		}
	})
	addr := ln.Addr().String()
	head := "POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
	tests := []struct {
		name, send string
		answered   bool // read the answer before waiting for the close
	}{
		{"header never finishes", head, false},
		{"body never finishes", head + "Content-Length: 1000\r\n\r\n{\"jsonrpc\":", false},
		{"idle after an answer", "GET /elsewhere HTTP/1.1\r\nHost: " + addr + "\r\n\r\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := io.WriteString(conn, tt.send); err != nil {
				t.Fatal(err)
			}
			if tt.answered {
				resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
			}
			if !closedByServer(t, conn) {
				t.Error("the server still holds the connection")
			}
		})
	}
	t.Run("a session works", func(t *testing.T) {
		if !listWorks(t, connectHTTP(t, "http://"+addr+HTTPPath)) {
			t.Error("memory_list was not answered")
		}
	})
}

// mcpPost posts one JSON-RPC message in session id ("" for none) and
// returns the response's session ID.
func mcpPost(t *testing.T, url, id, msg string) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(msg))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if id != "" {
		req.Header.Set(sessionHeader, id)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode/100 != 2 {
		t.Fatalf("%s: status %d", msg, resp.StatusCode)
	}
	return resp.Header.Get(sessionHeader)
}

// TestHTTPShutdown stops a server whose client waits on its standalone
// SSE stream, as MCP clients do between calls: the shutdown ends the
// stream instead of waiting out its grace (an hour here) for it.
func TestHTTPShutdown(t *testing.T) {
	svc := exampleService(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		lim := defaultHTTPLimits
		lim.grace = time.Hour
		done <- svc.runHTTP(ctx, ln, "", lim)
	}()
	url := "http://" + ln.Addr().String() + HTTPPath
	id := mcpPost(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	mcpPost(t, url, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(sessionHeader, id)
	stream, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	if stream.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: status %d", stream.StatusCode)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("runHTTP: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the shutdown still waits for the client's stream after a minute")
	}
	if _, err := io.Copy(io.Discard, stream.Body); err != nil {
		t.Errorf("the stream did not end cleanly: %v", err)
	}
}
