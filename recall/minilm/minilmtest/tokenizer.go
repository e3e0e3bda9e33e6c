package minilmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/sugarme/tokenizer"
	"github.com/sugarme/tokenizer/pretrained"

	"github.com/tmemhq/tmem/internal/textcorpus"
)

// ReferenceTokenizer returns what github.com/sugarme/tokenizer makes of a
// text with the tokenizer.json in config, set up as the embedder set it up before
// it had a tokenizer of its own: cut at maxLen ids, [CLS] and [SEP]
// included, and not padded. The ids of recall/minilm's tokenizer must be
// these.
//
// One step of the reference is broken, and with clean_text set the
// function does it first:
// BERT's normaliser drops NULs, replacement characters (which invalid
// UTF-8 becomes) and the control and format characters other than tab, line
// feed and carriage return (Unicode Cc and Cf: the zero-width joiner of
// emoji sequences, soft hyphens, byte order marks). Where the reference
// drops one, it loses track of the text's offsets: it repeats or loses word
// pieces after it, or panics.
func ReferenceTokenizer(tb testing.TB, config []byte, maxLen int) func(text string) ([]int64, error) {
	tb.Helper()
	return reference(tb, config, maxLen, true)
}

// PreviousTokenizer is ReferenceTokenizer with its broken step left as it
// is: the ids the embedder's previous pipeline gave a text, or the panic it
// died of.
func PreviousTokenizer(tb testing.TB, config []byte, maxLen int) func(text string) ([]int64, error) {
	tb.Helper()
	return reference(tb, config, maxLen, false)
}

// reference sets up github.com/sugarme/tokenizer as the embedder did; with
// fix, it drops what clean_text drops before the library's normaliser can
// mishandle it.
func reference(tb testing.TB, config []byte, maxLen int, fix bool) func(text string) ([]int64, error) {
	tb.Helper()
	tk, err := pretrained.FromReader(bytes.NewReader(config))
	if err != nil {
		tb.Fatalf("reference tokenizer: %v", err)
	}
	var switches struct {
		Normalizer struct {
			CleanText bool `json:"clean_text"`
		} `json:"normalizer"`
	}
	if err := json.Unmarshal(config, &switches); err != nil {
		tb.Fatal(err)
	}
	tk.WithTruncation(&tokenizer.TruncationParams{MaxLength: maxLen, Strategy: tokenizer.LongestFirst})
	tk.WithPadding(nil)
	return func(text string) (ids []int64, err error) {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("reference tokenizer panicked: %v", p)
			}
		}()
		if fix && switches.Normalizer.CleanText {
			text = dropControls(text)
		}
		e, err := tk.EncodeSingle(text, true)
		if err != nil {
			return nil, err
		}
		ids = make([]int64, len(e.Ids))
		for i, id := range e.Ids {
			ids[i] = int64(id)
		}
		return ids, nil
	}
}

// dropControls removes what BERT's clean_text step removes.
func dropControls(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == 0 || r == utf8.RuneError || (unicode.In(r, unicode.Cc, unicode.Cf) && r != '\t' && r != '\n' && r != '\r') {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// TokenizerCorpus is text of every kind a WordPiece tokenizer treats
// differently, by kind: accents, CJK, emoji, punctuation of many scripts,
// control characters, long words, white space runs, texts far longer than
// the model takes, invalid UTF-8, random mixes and the files of the
// bundled example workspace.
func TokenizerCorpus(tb testing.TB) map[string][]string {
	tb.Helper()
	rng := rand.New(rand.NewPCG(7, 2026))
	c := textcorpus.Common(rng, 300)
	c["plain"] = []string{
		"Why did the ETA rollover test fail on CI?", "The cat sits on the mat", "",
		"we moved the staging db to postgres 16 on 2026-11-03; the migration took 4h12m",
	}
	c["punctuation"] = []string{
		"!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", "«quotes» „low“ ‘single’ ¿qué? ¡sí!", "em—dash en–dash ellipsis…",
		"「括弧」、。・", "a.b.c...d---e___f", "it's can't won't they're", "C++ && x || !y; a->b::c",
		"[CLS] [SEP] [UNK] [MASK] [PAD] [cls] [sep] ##ing ##", "https://example.invalid/a/b?c=d&e=f#g",
	}
	c["control characters"] = []string{
		"nul\x00in\x00text", "bell\x07 and \x1b[31mansi\x1b[0m", "vertical\vtab form\ffeed",
		"zero\u200bwidth\u200djoiner\ufeffbom", "replacement \ufffd char", "soft\u00adhyphen", "rtl\u202emark\u202c",
		"line\u2028separator\u2029paragraph", "\x00\x00\x00", "\u0085next line",
	}
	c["long texts"] = []string{
		strings.Repeat("word ", 400), strings.Repeat("Antidisestablishmentarianism! ", 120),
		strings.Repeat("东京", 300), strings.Repeat("a, ", 253) + "end", strings.Repeat("a ", 254),
		strings.Repeat("a ", 255), textcorpus.Word(rng, 3000, "abc def,ghi.jkl mno"),
	}
	c["random"] = randomTokenizerTexts(rng, 800)
	c["workspace"] = textcorpus.Files(tb, filepath.Join(testdata(), "..", "..", "..", "testdata", "example"), 10)
	return c
}

// randomTokenizerTexts mixes characters of every class the tokenizer
// treats differently; half the texts have nothing BERT's normaliser drops.
func randomTokenizerTexts(rng *rand.Rand, n int) []string {
	pools := []string{
		"abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789", " ", "  \t\n\r",
		"!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", "東京日本語中文한국어", "éüßçñøÅİ", "\u0301\u0308\u093f",
		"😀🚀👍🏽\u200d", "ΑΒΓαβγ", "\u00a0\u3000\u2028", "ǅǈ", "«»¿¡—…「」", "€©°",
	}
	clean := textcorpus.Random(rng, n/2, 160, pools)
	dropped := append(pools, "\x00\x07\v\f\u0085\u00ad\ufeff\u200b\u200d\ufffd", textcorpus.Invalid)
	return append(clean, textcorpus.Random(rng, n-n/2, 160, dropped)...)
}
