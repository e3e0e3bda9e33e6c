package wordpiece

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// file is the part of tokenizer.json that Parse reads.
type file struct {
	AddedTokens []struct {
		Content    string `json:"content"`
		Normalized bool   `json:"normalized"`
	} `json:"added_tokens"`
	Normalizer *struct {
		Type               string `json:"type"`
		CleanText          *bool  `json:"clean_text"`
		HandleChineseChars *bool  `json:"handle_chinese_chars"`
		StripAccents       *bool  `json:"strip_accents"`
		Lowercase          *bool  `json:"lowercase"`
	} `json:"normalizer"`
	PreTokenizer *struct {
		Type string `json:"type"`
	} `json:"pre_tokenizer"`
	PostProcessor json.RawMessage `json:"post_processor"`
	Model         struct {
		Type                    string          `json:"type"`
		UnkToken                string          `json:"unk_token"`
		ContinuingSubwordPrefix *string         `json:"continuing_subword_prefix"`
		MaxInputCharsPerWord    *int            `json:"max_input_chars_per_word"`
		Vocab                   json.RawMessage `json:"vocab"`
	} `json:"model"`
}

// Parse reads a tokenizer.json. Its errors name the field that is wrong or
// not supported.
func Parse(data []byte) (*Tokenizer, error) {
	var f file
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	t := &Tokenizer{prefix: "##", maxRunes: 100}
	steps := []func(*file) error{t.readNormalizer, t.readPreTokenizer, t.readModel, t.readSpecial, t.readAddedTokens}
	for _, step := range steps {
		if err := step(&f); err != nil {
			return nil, err
		}
	}
	return t, nil
}

func (t *Tokenizer) readNormalizer(f *file) error {
	n := f.Normalizer
	if n == nil {
		return nil
	}
	if n.Type != "BertNormalizer" {
		return fmt.Errorf("normalizer: type %q is not supported (only BertNormalizer is)", n.Type)
	}
	on := func(b *bool) bool { return b != nil && *b }
	t.norm = normalizer{clean: on(n.CleanText), chinese: on(n.HandleChineseChars), lower: on(n.Lowercase), strip: on(n.StripAccents)}
	return nil
}

func (t *Tokenizer) readPreTokenizer(f *file) error {
	if p := f.PreTokenizer; p == nil || p.Type != "BertPreTokenizer" {
		got := "none"
		if p != nil {
			got = strconv.Quote(p.Type)
		}
		return fmt.Errorf("pre_tokenizer: %s is not supported (only BertPreTokenizer is)", got)
	}
	return nil
}

func (t *Tokenizer) readModel(f *file) error {
	m := &f.Model
	if m.Type != "WordPiece" {
		return fmt.Errorf("model: type %q is not supported (only WordPiece is)", m.Type)
	}
	if m.ContinuingSubwordPrefix != nil {
		t.prefix = *m.ContinuingSubwordPrefix
	}
	if m.MaxInputCharsPerWord != nil {
		t.maxRunes = *m.MaxInputCharsPerWord
	}
	var err error
	if t.vocab, t.maxKey, err = parseVocab(m.Vocab); err != nil {
		return fmt.Errorf("model.vocab: %w", err)
	}
	unk, ok := t.vocab.id([]byte(m.UnkToken))
	if !ok {
		return fmt.Errorf("model.unk_token %q is not in the vocabulary", m.UnkToken)
	}
	t.unk = int64(unk)
	return nil
}

// readAddedTokens checks that no added token can occur in lower-cased
// text, which Encode then need not look for.
func (t *Tokenizer) readAddedTokens(f *file) error {
	for _, a := range f.AddedTokens {
		if a.Normalized || strings.ToLower(a.Content) == a.Content {
			return fmt.Errorf("added_tokens: %q is not supported (only tokens that are not normalised and hold an upper-case letter, such as [CLS], are)", a.Content)
		}
	}
	return nil
}

// postProcessor is the post-processors Parse reads: BertProcessing, or
// TemplateProcessing of the form "[CLS] $A [SEP]".
type postProcessor struct {
	Type   string `json:"type"`
	Single []struct {
		SpecialToken *templatePiece `json:"SpecialToken"`
		Sequence     *templatePiece `json:"Sequence"`
	} `json:"single"`
	SpecialTokens map[string]struct {
		IDs []int64 `json:"ids"`
	} `json:"special_tokens"`
	CLS []json.RawMessage `json:"cls"`
	SEP []json.RawMessage `json:"sep"`
}

type templatePiece struct {
	ID     string `json:"id"`
	TypeID int    `json:"type_id"`
}

// errTemplate says what readSpecial accepts.
var errTemplate = errors.New(`post_processor: only BertProcessing and TemplateProcessing "[CLS] $A [SEP]" (type ids 0) are supported`)

// readSpecial reads the ids put before and after the pieces.
func (t *Tokenizer) readSpecial(f *file) error {
	var p postProcessor
	if err := json.Unmarshal(f.PostProcessor, &p); err != nil {
		return fmt.Errorf("post_processor: %w", err)
	}
	switch p.Type {
	case "BertProcessing":
		var err error
		if t.cls, err = bertToken(p.CLS); err == nil {
			t.sep, err = bertToken(p.SEP)
		}
		if err != nil {
			return errTemplate
		}
		return nil
	case "TemplateProcessing":
		s := p.Single
		if len(s) != 3 || s[0].SpecialToken == nil || s[1].Sequence == nil || s[2].SpecialToken == nil ||
			s[0].SpecialToken.TypeID != 0 || s[1].Sequence.TypeID != 0 || s[2].SpecialToken.TypeID != 0 {
			return errTemplate
		}
		cls, sep := p.SpecialTokens[s[0].SpecialToken.ID].IDs, p.SpecialTokens[s[2].SpecialToken.ID].IDs
		if len(cls) != 1 || len(sep) != 1 {
			return fmt.Errorf("post_processor: special_tokens %q and %q must have one id each", s[0].SpecialToken.ID, s[2].SpecialToken.ID)
		}
		t.cls, t.sep = cls[0], sep[0]
		return nil
	}
	return errTemplate
}

// bertToken reads BertProcessing's ["[CLS]", 101].
func bertToken(pair []json.RawMessage) (int64, error) {
	if len(pair) != 2 {
		return 0, errTemplate
	}
	var id int64
	err := json.Unmarshal(pair[1], &id)
	return id, err
}

// parseVocab reads the vocabulary, a JSON object of piece → id, that
// encoding/json has checked already. Most of tokenizer.json is this object;
// scanning it here, the keys sliced from one string, takes a fraction of
// what decoding it into a map with encoding/json takes. It also returns the
// longest key's length in bytes.
func parseVocab(raw json.RawMessage) (mapVocab, int, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '{' {
		return nil, 0, errors.New("not an object")
	}
	src := string(raw)
	vocab := make(mapVocab, bytes.Count(raw, []byte(`":`)))
	longest := 0
	for i := 1; ; {
		i = skipSpace(src, i)
		if src[i] == '}' {
			return vocab, longest, nil
		}
		key, next, err := jsonString(src, i)
		if err != nil {
			return nil, 0, err
		}
		i = skipSpace(src, next) + 1 // the colon
		i = skipSpace(src, i)
		j := i
		for j < len(src) && src[j] >= '0' && src[j] <= '9' {
			j++
		}
		id, err := strconv.ParseInt(src[i:j], 10, 32)
		if err != nil || (src[j] != ',' && src[j] != '}' && !isJSONSpace(src[j])) {
			return nil, 0, fmt.Errorf("%q: the id is not a whole number from 0 to %d", key, int32(^uint32(0)>>1))
		}
		vocab[key] = int32(id)
		longest = max(longest, len(key))
		i = skipSpace(src, j)
		if src[i] == ',' {
			i++
		}
	}
}

// jsonString reads the string that starts at src[i] (a quote) and returns it
// and the index after its closing quote. A string without escapes is a
// slice of src.
func jsonString(src string, i int) (string, int, error) {
	if src[i] != '"' {
		return "", 0, fmt.Errorf("offset %d: want a string", i)
	}
	j := i + 1
	escaped := false
	for ; src[j] != '"'; j++ {
		if src[j] == '\\' {
			escaped = true
			j++
		}
	}
	if !escaped {
		return src[i+1 : j], j + 1, nil
	}
	var s string
	err := json.Unmarshal([]byte(src[i:j+1]), &s)
	return s, j + 1, err
}

func skipSpace(s string, i int) int {
	for i < len(s) && isJSONSpace(s[i]) {
		i++
	}
	return i
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
