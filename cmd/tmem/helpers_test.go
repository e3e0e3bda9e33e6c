package main

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"testing"
)

func sortedKeys(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sortedStrings(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

// runTmem runs the CLI in-process with no environment and returns the exit
// code and both streams.
func runTmem(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	f := newFactory(strings.NewReader(""), &out, &errb, func(string) string { return "" })
	code = run(f, args)
	return code, out.String(), errb.String()
}
