package secrets

import (
	"strings"
	"testing"
)

// FuzzScan checks that Scan never panics and reports sorted,
// non-overlapping spans with their lines and columns right, that redacted
// text has no findings left, and that redacting twice changes nothing.
func FuzzScan(f *testing.F) {
	for _, s := range []string{
		"token " + publishedGitHubToken + " here",
		"AKIA" + rnd(1, base32Chars, 16) + "," + "AIza" + rnd(2, b64URLChars, 35),
		pemBlock("RSA PRIVATE KEY", 3),
		"-----BEGIN OPENSSH PRIVATE KEY-----\n" + rnd(4, b64Chars, 70) + "\n",
		"Authorization: Bearer " + jwt(`{"alg":"RS256"}`),
		"postgres://u:Zq8-" + rnd(5, alnumChars, 9) + "@h/db",
		"password: Xk9#mQ2$vL7pZr\napi_key=\"" + rnd(6, alnumChars, 32) + "\"",
		"sk-proj-" + rnd(7, b64URLChars, 40) + " sk-ant-" + rnd(8, b64URLChars, 40),
		"xoxb-1234567890-" + rnd(9, alnumChars, 24) + " glpat-" + rnd(10, b64URLChars, 20),
		"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk",
		"token: [REDACTED:github-token]",
		"password: &" + jwt(`{"alg":"HS256"}`) + " Xk9#mQ2$vL7pZr",
		"db:\n  password: &a !!str\n    Xk9#mQ2$vL7pZr\n  token: >- # note\n\n    " + rnd(11, alnumChars, 24) + "\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		fs := Scan(text)
		end := 0
		for _, fd := range fs {
			if fd.Start < end || fd.End <= fd.Start || fd.End > len(text) {
				t.Fatalf("bad span %d-%d (previous end %d) in %d bytes", fd.Start, fd.End, end, len(text))
			}
			end = fd.End
			if line := strings.Count(text[:fd.Start], "\n") + 1; fd.Line != line {
				t.Fatalf("line %d, want %d", fd.Line, line)
			}
			if col := fd.Start - strings.LastIndexByte(text[:fd.Start], '\n'); fd.Col != col {
				t.Fatalf("column %d, want %d", fd.Col, col)
			}
		}
		out, rfs := Redact(text)
		if len(rfs) != len(fs) {
			t.Fatalf("Redact found %d, Scan %d", len(rfs), len(fs))
		}
		if left := Scan(out); len(left) > 0 {
			t.Fatalf("redacted text still holds %s %q:\n%q", left[0].Rule, out[left[0].Start:left[0].End], out)
		}
		if again, _ := Redact(out); again != out {
			t.Fatalf("redacting twice changed %q to %q", out, again)
		}
	})
}
