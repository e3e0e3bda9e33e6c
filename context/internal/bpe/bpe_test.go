package bpe

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tiktoken-go/tokenizer"

	"github.com/tmemhq/tmem/internal/textcorpus"
)

// encodings pairs each built-in encoding with the reference tokenizer it
// must count exactly like.
var encodings = []struct {
	enc *Encoding
	ref tokenizer.Encoding
}{
	{O200k, tokenizer.O200kBase},
	{Cl100k, tokenizer.Cl100kBase},
}

func reference(t testing.TB, enc tokenizer.Encoding) tokenizer.Codec {
	t.Helper()
	c, err := tokenizer.Get(enc)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestTableMatchesReference checks the generated tables against the
// tokenizer they were generated from: every rank has the same token and
// every token looks up to its rank. It fails when the tables are stale
// (run go generate ./context/internal/bpe).
func TestTableMatchesReference(t *testing.T) {
	for _, e := range encodings {
		t.Run(e.enc.Name(), func(t *testing.T) {
			ref := reference(t, e.ref)
			n, err := e.enc.Len()
			if err != nil {
				t.Fatal(err)
			}
			for r := 0; r < n; r++ {
				want, err := ref.Decode([]uint{uint(r)})
				if err != nil {
					t.Fatalf("reference has no rank %d of %d: %v", r, n, err)
				}
				got, err := e.enc.Token(r)
				if err != nil || got != want {
					t.Fatalf("Token(%d) = %q, %v; reference %q", r, got, err, want)
				}
				if rank, ok, _ := e.enc.Rank(got); !ok || rank != r {
					t.Fatalf("Rank(%q) = %d, %v; want %d", got, rank, ok, r)
				}
			}
			if s, err := ref.Decode([]uint{uint(n)}); err == nil && s != "" {
				t.Errorf("reference has rank %d (%q) past the table's %d tokens", n, s, n)
			}
			for _, s := range []string{"", "tmem-not-a-token-\x00\xff", strings.Repeat("z", 300)} {
				if r, ok, _ := e.enc.Rank(s); ok {
					t.Errorf("Rank(%q) = %d, want none", s, r)
				}
			}
		})
	}
}

// corpus is text of every kind the counts must agree on, by name.
func corpus(t testing.TB) map[string][]string {
	t.Helper()
	rng := rand.New(rand.NewPCG(15, 2026))
	c := textcorpus.Common(rng, 3000)
	c["code"] = []string{
		"func (t *table) rank(s string) (uint32, bool) {\n\tfor i := fnv1a(s) & t.mask; ; i = (i + 1) & t.mask {\n\t\tv := u32(t.raw, t.slots+4*int(i))\n",
		"def f(x):\n    if x['key'] != None:\n        return {k: v for k, v in x.items()}  # comment\n\n\n",
		`{"id": 123456789, "name": "O'Brien's", "tags": ["a","b"], "nested": {"x": -1.5e-10}}`,
		"#!/bin/sh\nset -eu\nfor f in *.md; do grep -n 'TODO' \"$f\" || true; done 2>/dev/null >/dev/null\n",
		"SELECT a.id, COUNT(*) AS n FROM accounts a JOIN events e ON e.account_id=a.id WHERE e.ts >= '2026-01-01' GROUP BY 1;",
		"const x=(a,b)=>a&&b||!a?b??0:a;let y=[...x.map(z=>z**2)].filter(Boolean);window.onload=()=>{}",
		"<div class=\"row\"><a href=\"https://example.invalid/a/b?c=d&e=f#g\">link</a></div>\r\n",
	}
	c["long words"] = append(c["long words"],
		textcorpus.Word(rng, 2000, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"),
		"https://example.invalid/"+textcorpus.Word(rng, 800, "abc/def-ghi_"))
	c["whitespace runs"] = append(c["whitespace runs"], "a\u200bzero\u200dwidth")
	c["contractions and case"] = []string{
		"I'LL DO IT, you'll see; she's here, they'RE not, we'Ve, I'm, he'd", "ALLCAPS WORDS AND CamelCaseIdentifiers",
		"'s't're've'm'll'd", "HTTPServerError XMLHttpRequest iOS eBay",
	}
	c["random"] = randomTexts(rng, 1500)
	c["workspace"] = exampleFiles(t)
	return c
}

// randomTexts mixes characters from every class the split patterns treat
// differently.
func randomTexts(rng *rand.Rand, n int) []string {
	return textcorpus.Random(rng, n, 120, []string{
		"abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789", " ", "  \t\n\r",
		"!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", "'", "東京日本語中文한국어", "éüßçñø", "\u0301\u0308\u093f",
		"😀🚀👍🏽\u200d", "ΑΒΓαβγ", "\u00a0\u3000", "ǅǈ", "ʰˢ", "٣٤٥", textcorpus.Invalid,
	})
}

// exampleFiles reads the bundled example workspace's files.
func exampleFiles(t testing.TB) []string {
	t.Helper()
	return textcorpus.Files(t, "../../../testdata/example", 10)
}

func TestCountMatchesReference(t *testing.T) {
	c := corpus(t)
	for _, e := range encodings {
		ref := reference(t, e.ref)
		for kind, texts := range c {
			t.Run(e.enc.Name()+"/"+kind, func(t *testing.T) {
				all := strings.Join(texts, "\n")
				for _, text := range append(texts, all) {
					checkCount(t, e.enc, ref, text)
				}
			})
		}
	}
}

func checkCount(t *testing.T, enc *Encoding, ref tokenizer.Codec, text string) {
	t.Helper()
	want, err := ref.Count(text)
	if err != nil {
		t.Fatal(err)
	}
	got, err := enc.Count(text)
	if err != nil || got != want {
		short := text
		if len(short) > 80 {
			short = short[:80] + "…"
		}
		t.Errorf("Count(%q) = %d, %v; reference %d", short, got, err, want)
	}
}

func FuzzCount(f *testing.F) {
	for _, texts := range corpus(f) {
		for _, s := range texts[:min(3, len(texts))] {
			f.Add(s)
		}
	}
	refs := make([]tokenizer.Codec, len(encodings))
	for i, e := range encodings {
		refs[i] = reference(f, e.ref)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for i, e := range encodings {
			checkCount(t, e.enc, refs[i], text)
		}
	})
}

func TestOpenTableRefusesDamage(t *testing.T) {
	good, err := BuildTable([]string{"a", "b", "ab"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := openTable(string(good)); err != nil {
		t.Fatalf("good table: %v", err)
	}
	tests := []struct {
		name, raw, want string
	}{
		{"empty", "", "bad magic"},
		{"other magic", "tmbpe\x00\x00\x02" + string(good[8:]), "bad magic"},
		{"truncated", string(good[:len(good)-1]), "header says"},
		{"slots not a power of two", string(good[:12]) + "\x03\x00\x00\x00" + string(good[16:]), "slots for"},
		{"more tokens than slots", string(good[:8]) + "\x00\x01\x00\x00" + string(good[12:]), "slots for"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := openTable(tt.raw); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("openTable: %v, want an error with %q", err, tt.want)
			}
		})
	}
	t.Run("duplicate token", func(t *testing.T) {
		if _, err := BuildTable([]string{"a", "b", "a"}); err == nil || !strings.Contains(err.Error(), `"a" has ranks 0 and 2`) {
			t.Errorf("BuildTable: %v", err)
		}
	})
}

// TestCountLongText counts texts of several passes (see passEnd) like
// the reference tokenizer: logs, whose lines mostly start where a pass
// can end, logs with runs of blank lines, and texts whose lines never
// start where a pass can end, read in one pass.
func TestCountLongText(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 2026))
	log := textcorpus.Log(rng, 5*passBytes)
	blanks := func(unit string) string {
		return strings.ReplaceAll(log, "\n\n", "\n"+strings.Repeat(unit, 300))
	}
	tests := []struct {
		name    string
		text    string
		onePass bool
	}{
		{"log", log, false},
		{"crlf", strings.ReplaceAll(log, "\n", "\r\n"), false},
		{"cr", strings.ReplaceAll(log, "\n", "\r"), false},
		{"blank lines", strings.ReplaceAll(log, "\n", "\n\n"), false},
		{"blank lines of spaces", blanks(" \n"), false},
		{"blank lines of tabs and crlf", blanks("\t\t\r\n"), false},
		{"blank lines of ideographic spaces", blanks("\u3000\n"), false},
		{"random lines", strings.Join(randomTexts(rng, 5*passBytes/60), "\n"), false},
		{"line break first", "\n" + log[:2*passBytes], false},
		{"indented", strings.ReplaceAll(log, "\n", "\n "), false},
		{"one line", strings.ReplaceAll(log, "\n", " "), false},
		{"paths", strings.Repeat("/usr/lib/x86_64-linux-gnu/libtmem.so.1\n", 2*passBytes/39), true},
		{"no white space", textcorpus.Word(rng, 2*passBytes, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="), true},
		{"line breaks only", strings.Repeat("\n", 2*passBytes), true},
	}
	for _, e := range encodings {
		ref := reference(t, e.ref)
		for _, tt := range tests {
			t.Run(e.enc.Name()+"/"+tt.name, func(t *testing.T) {
				checkCount(t, e.enc, ref, tt.text)
				if n := len(checkPasses(t, tt.text)); (n == 1) != tt.onePass {
					t.Errorf("%d passes over %d bytes", n, len(tt.text))
				}
			})
		}
	}
}

// TestPassesOverBlankLines checks that a run of blank lines is counted in
// passes of about blankBytes, each of which the matchers read in time
// linear in its length, and like the reference tokenizer.
func TestPassesOverBlankLines(t *testing.T) {
	for _, tt := range []struct{ name, unit string }{
		{"space LF", " \n"}, {"space CR", " \r"}, {"tab CRLF", "\t\r\n"}, {"spaces LF", "   \n"},
		{"ideographic space LF", "\u3000\n"}, {"no-break space CRLF LF", "\u00a0\r\n\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			unit := tt.unit
			ps := checkPasses(t, "x"+strings.Repeat(unit, 3*passBytes/len(unit))+"y")
			for _, p := range ps[:len(ps)-1] {
				if len(p) > blankBytes+3*len(unit) {
					t.Fatalf("a pass of %d bytes (of %d)", len(p), len(ps))
				}
			}
			short := "x" + strings.Repeat(unit, 1000) + "y"
			for _, e := range encodings {
				checkCount(t, e.enc, reference(t, e.ref), short)
			}
		})
	}
	t.Run("random white space", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(64, 2026))
		words := []string{"a", "A.", "/x", "1", "'s", "x/", "中"}
		texts, passes := make([]string, 200), 0
		for i := range texts {
			var b strings.Builder
			for b.Len() < 2000 {
				b.WriteString(textcorpus.Random(rng, 1, 160, []string{" \t\n\r\u3000", " \n"})[0])
				b.WriteString(words[rng.IntN(len(words))])
			}
			texts[i] = b.String()
			passes += len(checkPasses(t, texts[i]))
		}
		if passes < 5*len(texts) {
			t.Errorf("%d passes over %d texts: too few to test", passes, len(texts))
		}
		for _, e := range encodings {
			ref := reference(t, e.ref)
			for _, text := range texts {
				checkCount(t, e.enc, ref, text)
			}
		}
	})
}

// checkPasses checks the passes Count makes over text and returns them:
// together they are the text, each ends where passCut says it can (or at
// the end of the text), and before passBytes only after blank lines.
func checkPasses(t *testing.T, text string) []string {
	t.Helper()
	var out []string
	for rest := text; rest != ""; {
		end := passEnd(rest)
		if end <= 0 || end > len(rest) {
			t.Fatalf("a pass ends at byte %d of %d", end, len(rest))
		}
		p := rest[:end]
		if end < len(rest) && !passCut(rest, end) {
			t.Fatalf("a pass ends at byte %d, between %q and %q", end, p[max(0, end-8):], rest[end:min(len(rest), end+8)])
		}
		if end < len(rest) && end <= passBytes && strings.TrimSpace(strings.ToValidUTF8(p[max(0, end-blankBytes):], " ")) != "" {
			t.Fatalf("a pass of %d bytes that does not end in blank lines: ...%q", end, p[max(0, end-blankBytes):])
		}
		out = append(out, p)
		rest = rest[end:]
	}
	return out
}
