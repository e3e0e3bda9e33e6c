// Package wordpiece turns text into the token ids of a BERT WordPiece
// vocabulary, as the tokenizer.json of a BERT uncased export describes it
// (all-MiniLM-L6-v2's, for one).
//
// Data enters as the bytes of tokenizer.json, read by Parse: the
// normaliser's switches (clean_text, handle_chinese_chars, lowercase,
// strip_accents), the WordPiece model with its vocabulary, and the [CLS]
// and [SEP] ids of the post-processor. Parse refuses files that describe
// any other pipeline, saying which field it does not support. Text leaves
// Encode as ids: [CLS], the word pieces, [SEP], cut to a maximum length.
//
// The ids are those of github.com/sugarme/tokenizer, which the embedder
// used before and which the tests keep as the reference, including where
// it differs from the Python tokenizers library (its white space is only
// space, tab, line feed, form feed and carriage return, for one). In one
// place the reference is broken and this package is not: where the
// normaliser drops a character (a control or format character such as a
// soft hyphen, a zero-width joiner or a byte order mark, or invalid
// UTF-8), the reference repeats or loses the word pieces after it, or
// panics; here the character is simply dropped. What this package adds
// is speed: a process that embeds one query reads the 0.5 MB file in a
// few milliseconds instead of tens, and all-MiniLM-L6-v2's file not at all:
// Precompiled hands out that tokenizer compiled into the binary (Compile),
// its vocabulary searched in place, to a caller that knows the file's
// sha256.
package wordpiece

//go:generate go run ./genwpc -in ../../testdata/pinned/tokenizer.json -out minilm.wpc
