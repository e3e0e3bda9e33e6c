package minilm

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/tmemhq/tmem/recall/minilm/internal/wordpiece"
)

// MaxTokens is where input is cut, in word pieces including [CLS] and [SEP].
// sentence-transformers uses 256 for all-MiniLM-L6-v2 (sentence_bert_config.json);
// tokenizer.json's own 128 and its fixed padding are not used.
const MaxTokens = 256

// normalizeText does the parts of BERT uncased normalisation that
// tokenizer.json leaves out (its strip_accents is unset): lowercase, NFD,
// and dropping combining marks, so that "naïve café" reaches WordPiece as
// "naive cafe" instead of [UNK] [UNK].
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

// DiffersFromPrevious reports whether the previous pipeline embedded text
// differently from this one: whether, once normalised, it holds a
// character BERT's normaliser drops (NUL, the replacement character that
// invalid UTF-8 becomes, a control character other than tab, line feed and
// carriage return, or a format character such as a soft hyphen, a
// zero-width joiner or a byte order mark). The tokenizer library of the
// previous pipeline repeated or lost the word pieces after such a
// character, or failed; tmem's own drops it. Every other text has the same
// word pieces under both, hence the same vector.
func DiffersFromPrevious(text string) bool {
	return strings.IndexFunc(normalizeText(text), dropped) >= 0
}

// dropped reports the characters BERT's normaliser (clean_text) drops.
func dropped(r rune) bool {
	switch r {
	case '\t', '\n', '\r':
		return false
	case 0, utf8.RuneError:
		return true
	}
	return unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Cf, r)
}

// isCJK reports the code points BERT treats as Chinese characters.
func isCJK(r rune) bool {
	return (r >= 0x4E00 && r <= 0x9FFF) || (r >= 0x3400 && r <= 0x4DBF) ||
		(r >= 0x20000 && r <= 0x2A6DF) || (r >= 0x2A700 && r <= 0x2B73F) ||
		(r >= 0x2B740 && r <= 0x2B81F) || (r >= 0x2B820 && r <= 0x2CEAF) ||
		(r >= 0xF900 && r <= 0xFAFF) || (r >= 0x2F800 && r <= 0x2FA1F)
}

// loadTokenizer reads dir/tokenizer.json, or takes the compiled one when
// the file is all-MiniLM-L6-v2's (its sha256 is cached with the other
// model files').
func loadTokenizer(dir string) (*wordpiece.Tokenizer, error) {
	if sums, err := cachedSums(dir, []string{"tokenizer.json"}); err == nil {
		if tk, ok := wordpiece.Precompiled(sums["tokenizer.json"]); ok {
			return tk, nil
		}
	}
	path := filepath.Join(dir, "tokenizer.json")
	b, err := readRegular(path)
	if err != nil {
		return nil, fmt.Errorf("read tokenizer: %w", err)
	}
	tk, err := wordpiece.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer %s: %w", path, err)
	}
	return tk, nil
}

// encoding is one text as model input.
type encoding struct {
	ids, typeIDs, mask []int64
}

// encode tokenizes one normalised text, cut at MaxTokens.
func encode(tk *wordpiece.Tokenizer, text string) encoding {
	ids := tk.Encode(text, MaxTokens)
	out := encoding{ids: ids, typeIDs: make([]int64, len(ids)), mask: make([]int64, len(ids))}
	for i := range out.mask {
		out.mask[i] = 1
	}
	return out
}
