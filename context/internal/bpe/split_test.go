package bpe

import (
	"math/rand/v2"
	"testing"

	"github.com/tmemhq/tmem/internal/textcorpus"
)

// Line ends and line starts of every kind SplitsBetween must judge: the
// joins of a prompt stack ("\n\n" then "#", "_" or text) and their
// neighbours.
var (
	splitTails = []string{"\n", "\n\n", "\n\n\n", " \n", "\t\n\n", "\r\n", "\r\n\r\n", "\n \n", "  \n\n", "x\n", "x\n\n",
		".\n", ":\n\n", "x.\n\n", "?!\n", "x's\n", "I'LL\n\n", "123\n", "1234\n\n", "中文\n", "🚀\n\n", "e\u0301\n",
		"\u00a0\n", "\u3000\n\n", "-\n\n", "|\n", "`\n", "_x_\n\n", "\xff\n", "http://x/\n", "#\n\n", "a\u200b\n"}
	splitHeads = []string{"#", "# x", "## Title", "### x", "_Source: x_", "_x", "- item", "* x", "+ x", "1. x", "x", "X", "Xy",
		"'s", "'ll x", "'", "123", "12345", "中", "🚀", "\u0301", "\u200b", "\xff", "`code`", ">", "|", "~", ".", ":", "\\", "=",
		"[x](y)", "\"", "(", "Ǆ"}
	// Starts SplitsBetween refuses: white space, and a slash, which
	// o200k_base's punctuation takes with the line breaks before it.
	refusedHeads = []string{" x", "  #", "\tx", "\n", "\n#", " \n#", "\r\n", "\u00a0x", "\u3000", "\u2028x", "/", "/x"}
)

// TestSplitsBetween checks that every join SplitsBetween accepts counts
// as its two sides do, with both the built-in tables and the reference
// tokenizer, around random text on either side.
func TestSplitsBetween(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 2026))
	around := append(randomTexts(rng, 12), "", "word", "# Heading\n\nSome text.")
	for _, e := range encodings {
		t.Run(e.enc.Name(), func(t *testing.T) {
			ref := reference(t, e.ref)
			joins := 0
			for _, tail := range splitTails {
				for _, head := range splitHeads {
					left := around[rng.IntN(len(around))] + tail
					right := head + around[rng.IntN(len(around))]
					if !e.enc.SplitsBetween(left, right) {
						t.Fatalf("SplitsBetween(%q, %q) = false, want true", left, right)
					}
					checkAdditive(t, e.enc, ref, left, right)
					joins++
				}
			}
			for _, head := range refusedHeads {
				if e.enc.SplitsBetween("x\n\n", head) {
					t.Errorf("SplitsBetween(%q, %q) = true, want false", "x\n\n", head)
				}
			}
			for _, pair := range [][2]string{{"x", "# y"}, {"x\n\n", ""}, {"", "#"}, {"x\r", "#"}} {
				if e.enc.SplitsBetween(pair[0], pair[1]) {
					t.Errorf("SplitsBetween(%q, %q) = true, want false", pair[0], pair[1])
				}
			}
			t.Logf("%d joins", joins)
		})
	}
}

// checkAdditive checks that left+right counts Count(left)+Count(right),
// and that the reference tokenizer agrees.
func checkAdditive(t *testing.T, enc *Encoding, ref interface{ Count(string) (int, error) }, left, right string) {
	t.Helper()
	count := func(s string) int {
		n, err := enc.Count(s)
		if err != nil {
			t.Fatal(err)
		}
		r, err := ref.Count(s)
		if err != nil || r != n {
			t.Fatalf("Count(%q) = %d; reference %d, %v", s, n, r, err)
		}
		return n
	}
	if l, r, both := count(left), count(right), count(left+right); l+r != both {
		t.Errorf("%q + %q: %d + %d tokens apart, %d joined", left, right, l, r, both)
	}
}

// TestSplitsBetweenRefusalsMatter shows joins that do not add up, which is
// why SplitsBetween refuses them.
func TestSplitsBetweenRefusalsMatter(t *testing.T) {
	tests := []struct {
		name        string
		enc         *Encoding
		left, right string
	}{
		{"o200k line break then more line breaks", O200k, "x\n\n", "\n# y"},
		{"o200k slash after punctuation", O200k, "## Notes:\n\n", "/usr/bin"},
		{"cl100k line break then more line breaks", Cl100k, "x\n\n", "\n# y"},
		{"o200k line break then a CRLF", O200k, "x\n", "\r\nz"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, _ := tt.enc.Count(tt.left)
			r, _ := tt.enc.Count(tt.right)
			both, _ := tt.enc.Count(tt.left + tt.right)
			if l+r == both {
				t.Errorf("%q + %q adds up (%d + %d); SplitsBetween need not refuse it", tt.left, tt.right, l, r)
			}
			if tt.enc.SplitsBetween(tt.left, tt.right) {
				t.Errorf("SplitsBetween(%q, %q) = true", tt.left, tt.right)
			}
		})
	}
}

// TestPassCut checks that text counts as its two sides do wherever
// passCut says a pass can end, with both the built-in tables and the
// reference tokenizer, on random text heavy in white space, line breaks
// and slashes; and that passCut refuses the joins that do not add up.
func TestPassCut(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 2026))
	texts := textcorpus.Random(rng, 400, 24, []string{" \t", "\r\n", "\n", "/", "ab", "AB", "'", ".:", "12", "\u3000\u0085", "中", "\u0301"})
	for _, e := range encodings {
		t.Run(e.enc.Name(), func(t *testing.T) {
			ref := reference(t, e.ref)
			cuts := 0
			for _, left := range texts[:20] {
				for _, right := range texts {
					if passCut(left+right, len(left)) {
						checkAdditive(t, e.enc, ref, left, right)
						cuts++
					}
				}
			}
			if cuts < 1000 {
				t.Errorf("only %d cuts tried", cuts)
			}
		})
	}
	for _, pair := range [][2]string{{"x\n\n", "\n# y"}, {"## Notes:\n\n", "/usr/bin"}, {"x\n", "\r\nz"}, {"x", "\n"}, {".", "\r\n"}, {"x ", " y"}, {"x", "y"}} {
		if passCut(pair[0]+pair[1], len(pair[0])) {
			t.Errorf("passCut(%q | %q) = true", pair[0], pair[1])
		}
	}
}
