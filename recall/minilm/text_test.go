package minilm

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/tmemhq/tmem/recall/minilm/internal/wordpiece"
	"github.com/tmemhq/tmem/recall/minilm/minilmtest"
)

func TestTokenIDs(t *testing.T) {
	tk, err := loadTokenizer(tinyDir)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		text string
		want []int64
	}{
		{"plain", "The cat sits on the mat", []int64{101, 1996, 4937, 7719, 2006, 1996, 13523, 102}},
		{"accented", "naïve café", []int64{101, 15743, 7668, 102}},
		{"cjk", "東京は日本", []int64{101, 1879, 1755, 1672, 1864, 1876, 102}},
		{"cjk no spaces in latin", "tmem東京", []int64{101, 1056, 4168, 2213, 1879, 1755, 102}},
		{"empty", "", []int64{101, 102}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := encode(tk, normalizeText(tt.text))
			if !reflect.DeepEqual(e.ids, tt.want) {
				t.Errorf("ids = %v, want %v", e.ids, tt.want)
			}
		})
	}
}

func TestTruncation(t *testing.T) {
	tk, err := loadTokenizer(tinyDir)
	if err != nil {
		t.Fatal(err)
	}
	long := ""
	for i := 0; i < 400; i++ {
		long += "word "
	}
	e := encode(tk, normalizeText(long))
	if len(e.ids) != MaxTokens {
		t.Fatalf("len = %d, want %d", len(e.ids), MaxTokens)
	}
	if e.ids[0] != 101 || e.ids[MaxTokens-1] != 102 {
		t.Errorf("ends = %d..%d, want 101..102", e.ids[0], e.ids[MaxTokens-1])
	}
}

// TestTokenizerMatchesReference runs the corpus through normalizeText and
// the tokenizer, as Embed does, and compares the ids with the tokenizer the
// embedder used before (see minilmtest.ReferenceTokenizer).
func TestTokenizerMatchesReference(t *testing.T) {
	tk, ref := tokenizers(t)
	for kind, texts := range minilmtest.TokenizerCorpus(t) {
		t.Run(kind, func(t *testing.T) {
			for _, text := range texts {
				checkTokenIDs(t, tk, ref, text)
			}
		})
	}
}

func FuzzTokenizer(f *testing.F) {
	for _, texts := range minilmtest.TokenizerCorpus(f) {
		for _, s := range texts[:min(3, len(texts))] {
			f.Add(s)
		}
	}
	tk, ref := tokenizers(f)
	f.Fuzz(func(t *testing.T, text string) {
		checkTokenIDs(t, tk, ref, text)
	})
}

// tokenizers loads the tiny model's tokenizer and the reference.
func tokenizers(tb testing.TB) (*wordpiece.Tokenizer, func(string) ([]int64, error)) {
	tb.Helper()
	tk, err := loadTokenizer(tinyDir)
	if err != nil {
		tb.Fatal(err)
	}
	return tk, minilmtest.ReferenceTokenizer(tb, tinyTokenizerConfig(tb), MaxTokens)
}

// tinyTokenizerConfig is the tiny model's tokenizer.json.
func tinyTokenizerConfig(tb testing.TB) []byte {
	tb.Helper()
	config, err := os.ReadFile(filepath.Join(tinyDir, "tokenizer.json"))
	if err != nil {
		tb.Fatal(err)
	}
	return config
}

func checkTokenIDs(t *testing.T, tk *wordpiece.Tokenizer, ref func(string) ([]int64, error), text string) {
	t.Helper()
	norm := normalizeText(text)
	want, err := ref(norm)
	if err != nil {
		t.Fatalf("%q: %v", norm, err)
	}
	if got := encode(tk, norm); !slices.Equal(got.ids, want) {
		short := text
		if len(short) > 80 {
			short = short[:80] + "…"
		}
		t.Errorf("ids of %q =\n%v\nreference\n%v", short, got.ids, want)
	}
}

// TestLoadTokenizerPrecompiledOrParsed: the pinned tokenizer.json is taken
// compiled; any other (here the same settings, one more byte) is parsed,
// and gives the same ids.
func TestLoadTokenizerPrecompiledOrParsed(t *testing.T) {
	config := tinyTokenizerConfig(t)
	other := t.TempDir()
	writeFile(t, filepath.Join(other, "tokenizer.json"), string(config)+"\n")
	pinned, err := loadTokenizer(tinyDir)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := loadTokenizer(other)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(config)
	if compiled, ok := wordpiece.Precompiled(hex.EncodeToString(sum[:])); !ok || pinned != compiled {
		t.Error("the pinned tokenizer.json was not taken compiled")
	}
	if parsed == pinned {
		t.Error("another tokenizer.json was taken for the pinned one")
	}
	for _, text := range []string{"The cat sits on the mat", "naïve café, 東京!", ""} {
		if a, b := encode(pinned, normalizeText(text)).ids, encode(parsed, normalizeText(text)).ids; !slices.Equal(a, b) {
			t.Errorf("%q: compiled %v, parsed %v", text, a, b)
		}
	}
}

// TestDiffersFromPrevious checks the promise behind reusing the previous
// pipeline's vectors: every text to which the previous tokenizer gave other
// ids than this one (or died on) is one DiffersFromPrevious reports.
func TestDiffersFromPrevious(t *testing.T) {
	tk, _ := tokenizers(t)
	prev := minilmtest.PreviousTokenizer(t, tinyTokenizerConfig(t), MaxTokens)
	differing := 0
	for kind, texts := range minilmtest.TokenizerCorpus(t) {
		t.Run(kind, func(t *testing.T) {
			for _, text := range texts {
				norm := normalizeText(text)
				want, err := prev(norm)
				if err == nil && slices.Equal(encode(tk, norm).ids, want) {
					continue
				}
				differing++
				if !DiffersFromPrevious(text) {
					t.Errorf("the previous tokenizer gave %q other ids (%v), and DiffersFromPrevious says it did not", text, err)
				}
			}
		})
	}
	if differing == 0 {
		t.Error("no text of the corpus tokenized differently before: the corpus does not exercise the difference")
	}
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"plain words, tabs\tand\r\nline ends", false},
		{"naïve café 東京 🚀", false},
		{"soft\u00adhyphen", true},
		{"\ufeffbyte order mark", true},
		{"family 👩\u200d👩\u200d👧", true},
		{"nul\x00byte", true},
		{"bell\x07", true},
		{"invalid \xff utf-8", true},
		{"replacement \ufffd character", true},
	} {
		if got := DiffersFromPrevious(tt.text); got != tt.want {
			t.Errorf("DiffersFromPrevious(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}
