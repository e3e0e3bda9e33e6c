package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveNow is the fixed clock of the serve tests: the example's today.
const serveNow = "2026-11-20T10:00:00Z"

// exampleWorkspace copies the bundled example into a temporary folder and
// returns its .teammates path.
func exampleWorkspace(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".teammates")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "testdata", "example", ".teammates"))); err != nil {
		t.Fatal(err)
	}
	return dir
}

// childEnv is the environment of a tmem child: no model (BM25 only), no
// workspace, clock or trusted settings from the caller's environment.
func childEnv(t *testing.T, extra ...string) []string {
	t.Helper()
	home := t.TempDir()
	env := []string{"HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(home, "cache"), "XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
		"TMEM_MODEL=", "TMEM_DIR=", "TMEM_NOW=", "TMEM_TOKEN="}
	return append(append(os.Environ(), env...), extra...)
}

// lockedBuffer collects a child's stderr while it runs.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// checkNoRace fails the test when a race-instrumented child reported a
// data race.
func checkNoRace(t *testing.T, stderr string) {
	t.Helper()
	if strings.Contains(stderr, "DATA RACE") {
		t.Errorf("the server reported a data race:\n%s", stderr)
	}
}

// serveCmd is a `tmem serve` process over the workspace dir. The tmem on
// PATH is this test binary (see TestMain), so it is race-instrumented
// under -race.
func serveCmd(t *testing.T, dir string, args ...string) (*exec.Cmd, *lockedBuffer) {
	t.Helper()
	cmd := exec.Command("tmem", append([]string{"--dir", dir, "--now", serveNow, "serve"}, args...)...)
	cmd.Env = childEnv(t)
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	return cmd, stderr
}

// startStdio starts `tmem serve` over stdio under the SDK's client and
// returns the session; it is closed (stdin EOF) at the end of the test,
// and the server must then exit 0.
func startStdio(t *testing.T, dir string, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd, stderr := serveCmd(t, dir, args...)
	client := mcp.NewClient(&mcp.Implementation{Name: "tmem-test", Version: "0"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to tmem serve: %v\n%s", err, stderr)
	}
	t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			t.Errorf("close the session: %v", err)
		}
		if cmd.ProcessState != nil && cmd.ProcessState.ExitCode() != 0 {
			t.Errorf("tmem serve exited %d after stdin closed\n%s", cmd.ProcessState.ExitCode(), stderr)
		}
		checkNoRace(t, stderr.String())
	})
	return cs
}

// startServe starts `tmem serve` over the workspace dir with extra args
// and returns an MCP session with it, closed at the end of the test.
type startServe func(t *testing.T, dir string, args ...string) *mcp.ClientSession

// forEachTransport runs a serve test once over the command transport
// (stdio) and once over streamable HTTP.
func forEachTransport(t *testing.T, test func(*testing.T, startServe)) {
	transports := []struct {
		name  string
		start startServe
	}{
		{"stdio", startStdio},
		{"http", startHTTPSession},
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) { test(t, tr.start) })
	}
}

// startHTTPSession starts `tmem serve --http` on a loopback port and
// connects to it.
func startHTTPSession(t *testing.T, dir string, args ...string) *mcp.ClientSession {
	t.Helper()
	cs, err := connectHTTP(t, startHTTP(t, dir, nil, args...), nil)
	if err != nil {
		t.Fatalf("connect to tmem serve --http: %v", err)
	}
	return cs
}

// callTool calls a tool and fails the test on a protocol error (a tool
// error is returned in the result).
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return res
}

// toolOK calls a tool that must succeed and decodes its structured output
// into out.
func toolOK(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) *mcp.CallToolResult {
	t.Helper()
	res := callTool(t, cs, name, args)
	if res.IsError {
		t.Fatalf("%s %v: tool error: %s", name, args, resultText(res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s: structured output %s: %v", name, b, err)
	}
	return res
}

// resultText joins a result's text content.
func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// runCLI runs a tmem child process and returns its stdout; it must exit 0.
func runCLI(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("tmem", append([]string{"--dir", dir, "--now", serveNow}, args...)...)
	cmd.Env = childEnv(t)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("tmem %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	checkNoRace(t, stderr.String())
	return stdout.String()
}

// startHTTP starts `tmem serve --http 127.0.0.1:0` with extra args and
// environment, and returns the endpoint's URL read from its stderr.
func startHTTP(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	u, _ := startHTTPLog(t, dir, env, args...)
	return u
}

// startHTTPLog is startHTTP that also returns the server's stderr, up to
// the line that says where it listens and on as it comes.
func startHTTPLog(t *testing.T, dir string, env []string, args ...string) (string, *lockedBuffer) {
	t.Helper()
	cmd := exec.Command("tmem", append([]string{"--dir", dir, "--now", serveNow, "serve", "--http", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(childEnv(t), env...)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	rest := &lockedBuffer{}
	url := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			if u, ok := strings.CutPrefix(line, "tmem: serving MCP on "); ok {
				url <- u
			}
			rest.Write([]byte(line + "\n"))
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		if err := cmd.Wait(); err != nil {
			t.Errorf("tmem serve --http after SIGINT: %v\n%s", err, rest)
		}
		checkNoRace(t, rest.String())
	})
	select {
	case u := <-url:
		return u, rest
	case <-time.After(time.Minute):
		t.Fatalf("tmem serve --http did not say where it listens\n%s", rest)
	}
	return "", rest
}

// connectHTTP opens an MCP session to url; header, when set, is added to
// every request.
func connectHTTP(t *testing.T, url string, header http.Header) (*mcp.ClientSession, error) {
	t.Helper()
	hc := &http.Client{Transport: headerTransport{header, http.DefaultTransport}}
	client := mcp.NewClient(&mcp.Implementation{Name: "tmem-test", Version: "0"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

type headerTransport struct {
	h    http.Header
	next http.RoundTripper
}

func (ht headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range ht.h {
		r.Header[k] = v
	}
	return ht.next.RoundTrip(r)
}

// serveCLI is a tmem CLI child over dir, not yet started.
func serveCLI(t *testing.T, dir string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("tmem", append([]string{"--dir", dir, "--now", serveNow}, args...)...)
	cmd.Env = childEnv(t)
	return cmd
}
