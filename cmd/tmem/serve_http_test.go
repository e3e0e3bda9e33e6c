package main

import (
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"testing"
)

func TestServeHTTPBind(t *testing.T) {
	dir := exampleWorkspace(t)
	tests := []struct {
		name string
		args []string
		env  []string
		want string
	}{
		{"any address without --allow-remote", []string{"--http", "0.0.0.0:0"}, nil, "not a loopback address"},
		{"remote address without --allow-remote", []string{"--http", "192.0.2.1:8765"}, []string{"TMEM_TOKEN=secret-token-value"}, "not a loopback address"},
		{"--allow-remote without a token", []string{"--http", "0.0.0.0:0", "--allow-remote"}, nil, "TMEM_TOKEN"},
		{"not host:port", []string{"--http", "8765"}, nil, "host:port"},
		{"--allow-remote without --http", []string{"--allow-remote"}, nil, "goes with --http"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command("tmem", append([]string{"--dir", dir, "serve"}, tt.args...)...)
			cmd.Env = append(childEnv(t), tt.env...)
			out, err := cmd.CombinedOutput()
			if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != exitUsage {
				t.Fatalf("exit %v, want %d\n%s", err, exitUsage, out)
			}
			if !strings.Contains(string(out), tt.want) {
				t.Errorf("output does not say %q:\n%s", tt.want, out)
			}
			// refused before any work: one line, nothing about the model
			if lines := strings.Split(strings.TrimSpace(string(out)), "\n"); len(lines) != 1 {
				t.Errorf("output is %d lines, want the refusal alone:\n%s", len(lines), out)
			}
		})
	}
}

func TestServeHTTPToken(t *testing.T) {
	dir := exampleWorkspace(t)
	const token = "4f9c1e7a2b6d8e0f3a5c7e9b1d3f5a7c"
	u := startHTTP(t, dir, []string{"TMEM_TOKEN=" + token}, "--allow-remote")
	tests := []struct {
		name   string
		header string
		ok     bool
	}{
		{"no token", "", false},
		{"wrong token", "Bearer 0000", false},
		{"token without Bearer", token, false},
		{"right token", "Bearer " + token, true},
		{"scheme in lower case", "bearer " + token, true},
		{"scheme in upper case", "BEARER  " + token, true},
		{"right token and more", "Bearer " + token + "0", false},
		{"no space after the scheme", "Bearer" + token, false},
		{"another scheme", "Basic " + token, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			if tt.header != "" {
				h.Set("Authorization", tt.header)
			}
			cs, err := connectHTTP(t, u, h)
			if !tt.ok {
				if err == nil {
					t.Fatal("connected without the right token")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var out struct {
				Hits []any `json:"hits"`
			}
			toolOK(t, cs, "memory_search", map[string]any{"query": "bulk lookup"}, &out)
			if len(out.Hits) == 0 {
				t.Error("no hits over HTTP")
			}
		})
	}
}

// TestServeHTTPWithoutToken: served over HTTP without TMEM_TOKEN, the
// memory is open to every program and user on the machine that reaches
// the port, which stderr says before it says where it listens; with a
// token, it says nothing of it.
func TestServeHTTPWithoutToken(t *testing.T) {
	dir := exampleWorkspace(t)
	const warning = "tmem: no TMEM_TOKEN: every program and user on this machine can read and write this memory through http://127.0.0.1:"
	_, log := startHTTPLog(t, dir, nil)
	if !strings.Contains(log.String(), warning) {
		t.Errorf("stderr without a token:\n%s\nwant a line starting %q", log, warning)
	}
	_, log = startHTTPLog(t, dir, []string{"TMEM_TOKEN=4f9c1e7a2b6d8e0f3a5c7e9b1d3f5a7c"})
	if strings.Contains(log.String(), "no TMEM_TOKEN") {
		t.Errorf("stderr with a token:\n%s\nwant no warning", log)
	}
}

func TestServeHTTPHostOrigin(t *testing.T) {
	dir := exampleWorkspace(t)
	u := startHTTP(t, dir, nil)
	addr, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		host   string
		origin string
		ok     bool
	}{
		{"own host", "", "", true},
		{"own origin", "", "http://" + addr.Host, true},
		{"foreign host (DNS rebinding)", "attacker.example:80", "", false},
		{"foreign origin", "", "http://attacker.example", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
			req, err := http.NewRequest("POST", u, strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tt.host != "" {
				req.Host = tt.host
			}
			if tt.origin != "" {
				req.Header.Set("Origin", tt.origin)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if got := resp.StatusCode == http.StatusOK; got != tt.ok {
				t.Errorf("status %d, want ok=%v", resp.StatusCode, tt.ok)
			}
			if !tt.ok && resp.StatusCode != http.StatusForbidden {
				t.Errorf("status %d, want 403", resp.StatusCode)
			}
		})
	}
}
