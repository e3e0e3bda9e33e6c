package main

import (
	"bytes"
	"encoding/json"
	"runtime/debug"
	"strings"
	"testing"
)

// panicWriter stands in for a stdout whose Write panics.
type panicWriter struct{}

func (panicWriter) Write([]byte) (int, error) { panic("write exploded") }

func TestPanicIsOneLineAndExit1(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		wantStack bool
	}{
		{"one line", []string{"--version"}, false},
		{"stack under -v", []string{"-v", "--version"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var errb bytes.Buffer
			f := newFactory(strings.NewReader(""), panicWriter{}, &errb, func(string) string { return "" })
			code := run(f, tt.args)
			if code != exitFailure {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitFailure, errb.String())
			}
			first, rest, _ := strings.Cut(errb.String(), "\n")
			if !strings.HasPrefix(first, "tmem: internal error: write exploded (this is a bug in tmem") {
				t.Errorf("first line %q", first)
			}
			if hasStack := strings.Contains(rest, "goroutine "); hasStack != tt.wantStack {
				t.Errorf("stack printed = %v, want %v; stderr:\n%s", hasStack, tt.wantStack, errb.String())
			}
		})
	}
}

func TestVersionOf(t *testing.T) {
	tests := []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{"release", debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3"},
		{"pseudo-version", debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261123115447-41ce859df9cc"}}, "v0.0.0-20261123115447-41ce859df9cc"},
		{"revision only", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "41ce859df9cc7ec79d86afb01f5ddd3d13ad7b6c"}, {Key: "vcs.modified", Value: "false"}}}, "41ce859df9cc"},
		{"dirty revision", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "41ce859df9cc7ec79d86afb01f5ddd3d13ad7b6c"}, {Key: "vcs.modified", Value: "true"}}}, "41ce859df9cc+dirty"},
		{"nothing stamped", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "(devel)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := versionOf(&tt.bi); got != tt.want {
				t.Errorf("versionOf = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestVersionJSON(t *testing.T) {
	code, out, _ := runTmem(t, "--json", "--version")
	var v struct{ Version string }
	if err := json.Unmarshal([]byte(out), &v); code != 0 || err != nil || v.Version != version() {
		t.Errorf("exit %d, stdout %q (%v): want {\"version\": %q}", code, out, err, version())
	}
	if code, out, _ := runTmem(t, "--version"); code != 0 || out != "tmem version "+version()+"\n" {
		t.Errorf("exit %d, stdout %q", code, out)
	}
}
