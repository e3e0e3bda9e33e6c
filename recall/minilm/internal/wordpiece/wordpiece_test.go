package wordpiece

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tmemhq/tmem/recall/minilm/minilmtest"
)

const maxLen = 256

// pinned is the pinned model's tokenizer.json.
func pinned(tb testing.TB) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(minilmtest.PinnedDir(), "tokenizer.json"))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func parse(tb testing.TB, config []byte) *Tokenizer {
	tb.Helper()
	tk, err := Parse(config)
	if err != nil {
		tb.Fatal(err)
	}
	return tk
}

// TestEncodeMatchesReference compares every text of the corpus, lower-cased
// as Encode expects, with the reference tokenizer.
func TestEncodeMatchesReference(t *testing.T) {
	config := pinned(t)
	ref := minilmtest.ReferenceTokenizer(t, config, maxLen)
	corpus := minilmtest.TokenizerCorpus(t)
	for name, tk := range map[string]*Tokenizer{"parsed": parse(t, config), "precompiled": precompiledPinned(t)} {
		for kind, texts := range corpus {
			t.Run(name+"/"+kind, func(t *testing.T) {
				for _, text := range texts {
					checkEncode(t, tk, ref, strings.ToLower(text), maxLen)
				}
			})
		}
	}
}

// precompiledPinned is the embedded tokenizer, which must be the pinned
// file's.
func precompiledPinned(t *testing.T) *Tokenizer {
	t.Helper()
	sum := sha256.Sum256(pinned(t))
	tk, ok := Precompiled(hex.EncodeToString(sum[:]))
	if !ok {
		t.Fatal("Precompiled does not know the pinned tokenizer.json")
	}
	return tk
}

// TestPrecompiledIsCurrent: the embedded file is what go generate makes of
// the pinned tokenizer.json.
func TestPrecompiledIsCurrent(t *testing.T) {
	b, err := Compile(pinned(t))
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != minilm {
		t.Error("minilm.wpc is not the compiled pinned tokenizer.json; run go generate ./recall/minilm/internal/wordpiece")
	}
}

// TestPrecompiledMatchesParse compares the compiled tokenizer with the one
// Parse reads from the same file, setting by setting and piece by piece.
func TestPrecompiledMatchesParse(t *testing.T) {
	parsed, compiled := parse(t, pinned(t)), precompiledPinned(t)
	if parsed.norm != compiled.norm || parsed.prefix != compiled.prefix || parsed.maxRunes != compiled.maxRunes ||
		parsed.maxKey != compiled.maxKey || parsed.unk != compiled.unk || parsed.cls != compiled.cls || parsed.sep != compiled.sep {
		t.Errorf("settings differ:\nparsed   %+v\ncompiled %+v", *parsed, *compiled)
	}
	m := parsed.vocab.(mapVocab)
	if n := compiled.vocab.(tableVocab).n; n != len(m) {
		t.Errorf("%d pieces compiled, %d parsed", n, len(m))
	}
	for piece, want := range m {
		if got, ok := compiled.vocab.id([]byte(piece)); !ok || got != want {
			t.Errorf("piece %q: compiled id %d, %v; parsed %d", piece, got, ok, want)
		}
	}
	for _, absent := range []string{"", "tmem-not-a-piece", "##", "\xff", strings.Repeat("a", 300)} {
		if id, ok := compiled.vocab.id([]byte(absent)); ok {
			t.Errorf("piece %q: compiled id %d, want none", absent, id)
		}
	}
	if _, ok := Precompiled(strings.Repeat("0", 64)); ok {
		t.Error("Precompiled knows a tokenizer.json of another sum")
	}
}

func TestDecodeRefusesDamage(t *testing.T) {
	tests := []struct{ name, raw, want string }{
		{"empty", "", "bad magic"},
		{"other magic", "tmwpc\x00\x00\x02" + minilm[8:], "bad magic"},
		{"truncated", minilm[:len(minilm)-1], "the header says otherwise"},
		{"header only", minilm[:compiledHeader], "the header says otherwise"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, err := decode(tt.raw); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("decode: %v, want an error with %q", err, tt.want)
			}
		})
	}
}

// TestNormalizerSwitches turns each of BertNormalizer's switches the other
// way and compares with the reference on the same file.
func TestNormalizerSwitches(t *testing.T) {
	corpus := minilmtest.TokenizerCorpus(t)
	var texts []string
	for _, kind := range []string{"accents and scripts", "cjk", "control characters", "whitespace runs", "random"} {
		texts = append(texts, corpus[kind]...)
	}
	for _, sw := range []string{"clean_text", "handle_chinese_chars", "strip_accents", "lowercase"} {
		t.Run(sw, func(t *testing.T) {
			config := flipSwitch(t, pinned(t), sw)
			tk := parse(t, config)
			ref := minilmtest.ReferenceTokenizer(t, config, maxLen)
			for _, text := range texts {
				checkEncode(t, tk, ref, strings.ToLower(text), maxLen)
			}
		})
	}
}

// flipSwitch returns config with the normaliser's switch name turned
// the other way (null counts as false).
func flipSwitch(t *testing.T, config []byte, name string) []byte {
	t.Helper()
	var f map[string]any
	if err := json.Unmarshal(config, &f); err != nil {
		t.Fatal(err)
	}
	n := f["normalizer"].(map[string]any)
	on, _ := n[name].(bool)
	n[name] = !on
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func checkEncode(t *testing.T, tk *Tokenizer, ref func(string) ([]int64, error), text string, max int) {
	t.Helper()
	want, err := ref(text)
	if err != nil {
		t.Fatalf("%q: %v", text, err)
	}
	if got := tk.Encode(text, max); !slices.Equal(got, want) {
		short := text
		if len(short) > 80 {
			short = short[:80] + "…"
		}
		t.Errorf("Encode(%q) =\n%v\nreference\n%v", short, got, want)
	}
}

// TestEncodeLengths checks the cut at other lengths than the embedder's.
func TestEncodeLengths(t *testing.T) {
	config := pinned(t)
	tk := parse(t, config)
	text := strings.ToLower(strings.Repeat("Antidisestablishmentarianism, naïve 東京! ", 20))
	for _, max := range []int{3, 4, 5, 17, 64, 128, 512} {
		t.Run(fmt.Sprint(max), func(t *testing.T) {
			checkEncode(t, tk, minilmtest.ReferenceTokenizer(t, config, max), text, max)
		})
	}
}

func FuzzEncode(f *testing.F) {
	for _, texts := range minilmtest.TokenizerCorpus(f) {
		for _, s := range texts[:min(3, len(texts))] {
			f.Add(s)
		}
	}
	config := pinned(f)
	tk := parse(f, config)
	ref := minilmtest.ReferenceTokenizer(f, config, maxLen)
	f.Fuzz(func(t *testing.T, text string) {
		checkEncode(t, tk, ref, strings.ToLower(text), maxLen)
	})
}

// TestParseRefuses changes one field of the pinned file at a time.
func TestParseRefuses(t *testing.T) {
	tests := []struct {
		name string
		edit func(f map[string]any)
		want string
	}{
		{"other normaliser", func(f map[string]any) { f["normalizer"] = map[string]any{"type": "NFKC"} }, `normalizer: type "NFKC" is not supported`},
		{"no pre-tokeniser", func(f map[string]any) { f["pre_tokenizer"] = nil }, "pre_tokenizer: none is not supported"},
		{"other pre-tokeniser", func(f map[string]any) { f["pre_tokenizer"] = map[string]any{"type": "Whitespace"} }, `pre_tokenizer: "Whitespace" is not supported`},
		{"other model", func(f map[string]any) { model(f)["type"] = "BPE" }, `model: type "BPE" is not supported`},
		{"vocabulary not an object", func(f map[string]any) { model(f)["vocab"] = []any{"a"} }, "model.vocab: not an object"},
		{"fractional id", func(f map[string]any) { model(f)["vocab"] = map[string]any{"[UNK]": 0, "a": 1.5} }, `model.vocab: "a": the id is not a whole number`},
		{"negative id", func(f map[string]any) { model(f)["vocab"] = map[string]any{"[UNK]": 0, "a": -1} }, `model.vocab: "a": the id is not a whole number`},
		{"string id", func(f map[string]any) { model(f)["vocab"] = map[string]any{"[UNK]": 0, "a": "1"} }, `model.vocab: "a": the id is not a whole number`},
		{"unknown token missing", func(f map[string]any) { model(f)["unk_token"] = "[NOPE]" }, `model.unk_token "[NOPE]" is not in the vocabulary`},
		{"lower-case added token", func(f map[string]any) { addToken(f, "<s>", false) }, `added_tokens: "<s>" is not supported`},
		{"normalised added token", func(f map[string]any) { addToken(f, "[NEW]", true) }, `added_tokens: "[NEW]" is not supported`},
		{"no post-processor", func(f map[string]any) { f["post_processor"] = nil }, "post_processor: only BertProcessing"},
		{"template with a pair", func(f map[string]any) { template(f)["single"] = template(f)["pair"] }, "post_processor: only BertProcessing"},
		{"template type id", func(f map[string]any) {
			template(f)["single"].([]any)[1].(map[string]any)["Sequence"].(map[string]any)["type_id"] = 1
		}, "post_processor: only BertProcessing"},
		{"special token with two ids", func(f map[string]any) {
			template(f)["special_tokens"].(map[string]any)["[CLS]"].(map[string]any)["ids"] = []any{101, 102}
		}, `special_tokens "[CLS]" and "[SEP]" must have one id each`},
		{"bert processing pair", func(f map[string]any) {
			f["post_processor"] = map[string]any{"type": "BertProcessing", "sep": []any{"[SEP]"}, "cls": []any{"[CLS]", 101}}
		}, "post_processor: only BertProcessing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f map[string]any
			if err := json.Unmarshal(pinned(t), &f); err != nil {
				t.Fatal(err)
			}
			tt.edit(f)
			b, err := json.Marshal(f)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Parse(b); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse: %v, want an error with %q", err, tt.want)
			}
		})
	}
	t.Run("not JSON", func(t *testing.T) {
		if _, err := Parse([]byte(`{"model": `)); err == nil {
			t.Error("Parse accepted a truncated file")
		}
	})
}

func model(f map[string]any) map[string]any    { return f["model"].(map[string]any) }
func template(f map[string]any) map[string]any { return f["post_processor"].(map[string]any) }

func addToken(f map[string]any, content string, normalized bool) {
	f["added_tokens"] = append(f["added_tokens"].([]any), map[string]any{"id": 1, "content": content, "special": true, "normalized": normalized})
}

// TestParseBertProcessing reads the older post-processor form.
func TestParseBertProcessing(t *testing.T) {
	var f map[string]any
	if err := json.Unmarshal(pinned(t), &f); err != nil {
		t.Fatal(err)
	}
	f["post_processor"] = map[string]any{"type": "BertProcessing", "sep": []any{"[SEP]", 102}, "cls": []any{"[CLS]", 101}}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	tk := parse(t, b)
	ref := minilmtest.ReferenceTokenizer(t, b, maxLen)
	checkEncode(t, tk, ref, "the cat sits on the mat", maxLen)
}

// TestParseEscapedKeys reads vocabulary keys with JSON escapes.
func TestParseEscapedKeys(t *testing.T) {
	var f map[string]any
	if err := json.Unmarshal(pinned(t), &f); err != nil {
		t.Fatal(err)
	}
	vocab := map[string]any{"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, `"`: 3, `\`: 4, "é": 5, "\u2028": 6, "😀": 7, "a": 8, "##\"": 9}
	model(f)["vocab"] = vocab
	template(f)["special_tokens"] = map[string]any{"[CLS]": map[string]any{"ids": []any{1}}, "[SEP]": map[string]any{"ids": []any{2}}}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	tk := parse(t, b)
	longest := 0
	for key, id := range vocab {
		if got, ok := tk.vocab.id([]byte(key)); !ok || got != int32(id.(int)) {
			t.Errorf("vocab[%q] = %d, %v, want %d", key, got, ok, id)
		}
		longest = max(longest, len(key))
	}
	if n := len(tk.vocab.(mapVocab)); n != len(vocab) || tk.maxKey != longest {
		t.Errorf("%d keys, the longest %d bytes; want %d and %d", n, tk.maxKey, len(vocab), longest)
	}
}

func BenchmarkPrecompiledEncodeQuery(b *testing.B) {
	sum := sha256.Sum256(pinned(b))
	tk, _ := Precompiled(hex.EncodeToString(sum[:]))
	for b.Loop() {
		tk.Encode("why did the eta rollover test fail on ci?", maxLen)
	}
}

func BenchmarkParse(b *testing.B) {
	config := pinned(b)
	for b.Loop() {
		if _, err := Parse(config); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeQuery(b *testing.B) {
	tk := parse(b, pinned(b))
	for b.Loop() {
		tk.Encode("why did the eta rollover test fail on ci?", maxLen)
	}
}
