package minilm

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/sugarme/tokenizer"
	"github.com/sugarme/tokenizer/pretrained"
	"golang.org/x/text/unicode/norm"
)

// MaxTokens is where input is cut, in word pieces including [CLS] and [SEP].
// sentence-transformers uses 256 for all-MiniLM-L6-v2 (sentence_bert_config.json);
// tokenizer.json's own 128 and its fixed padding are overridden.
const MaxTokens = 256

// normalizeText does the parts of BERT uncased normalisation that the pure-Go
// tokenizer skips: lowercase, NFD, and dropping combining marks, so that
// "naïve café" reaches WordPiece as "naive cafe" instead of [UNK] [UNK].
// CJK characters are spaced apart so each one is its own token whatever the
// tokenizer does.
func normalizeText(s string) string {
	s = norm.NFD.String(strings.ToLower(s))
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case unicode.Is(unicode.Mn, r):
			continue
		case isCJK(r):
			b.WriteByte(' ')
			b.WriteRune(r)
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isCJK reports the code points BERT treats as Chinese characters.
func isCJK(r rune) bool {
	return (r >= 0x4E00 && r <= 0x9FFF) || (r >= 0x3400 && r <= 0x4DBF) ||
		(r >= 0x20000 && r <= 0x2A6DF) || (r >= 0x2A700 && r <= 0x2B73F) ||
		(r >= 0x2B740 && r <= 0x2B81F) || (r >= 0x2B820 && r <= 0x2CEAF) ||
		(r >= 0xF900 && r <= 0xFAFF) || (r >= 0x2F800 && r <= 0x2FA1F)
}

// configureTokenizer sets truncation at MaxTokens and turns off fixed padding,
// so that a batch is padded only to its longest member.
func configureTokenizer(tk *tokenizer.Tokenizer) {
	tk.WithTruncation(&tokenizer.TruncationParams{MaxLength: MaxTokens, Strategy: tokenizer.LongestFirst})
	tk.WithPadding(nil)
}

// loadTokenizer reads dir/tokenizer.json.
func loadTokenizer(dir string) (*tokenizer.Tokenizer, error) {
	path := filepath.Join(dir, "tokenizer.json")
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open tokenizer: %w", err)
	}
	defer f.Close()
	tk, err := pretrained.FromReader(f)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer %s: %w", path, err)
	}
	configureTokenizer(tk)
	return tk, nil
}

// encoding is one text as model input.
type encoding struct {
	ids, typeIDs, mask []int64
}

// encode tokenizes one normalised text.
func encode(tk *tokenizer.Tokenizer, text string) (encoding, error) {
	e, err := tk.EncodeSingle(text, true)
	if err != nil {
		return encoding{}, fmt.Errorf("tokenize: %w", err)
	}
	out := encoding{
		ids:     make([]int64, len(e.Ids)),
		typeIDs: make([]int64, len(e.Ids)),
		mask:    make([]int64, len(e.Ids)),
	}
	for i, id := range e.Ids {
		out.ids[i] = int64(id)
		if i < len(e.TypeIds) {
			out.typeIDs[i] = int64(e.TypeIds[i])
		}
		out.mask[i] = 1
		if i < len(e.AttentionMask) {
			out.mask[i] = int64(e.AttentionMask[i])
		}
	}
	return out, nil
}
