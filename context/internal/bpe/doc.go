// Package bpe counts tokens with tiktoken's byte-pair encodings (o200k_base,
// cl100k_base) without building their vocabularies at start-up.
//
// Each vocabulary is stored in a precompiled table (o200k.bpe, cl100k.bpe)
// that the binary embeds and reads in place: a header, one offset per token,
// an open-addressing hash table of ranks and the tokens' bytes. Opening an
// encoding parses nothing, so the first count in a process costs what the
// text costs, not the 200,000-entry map a tiktoken vocabulary otherwise
// needs.
//
// Data enters as text passed to Encoding.Count and leaves as the number of
// tokens, equal to what github.com/tiktoken-go/tokenizer counts for the same
// encoding: the text is split with the encoding's own pattern and each piece
// is merged, lowest rank first and leftmost among equals, as tiktoken does.
// The tables are generated from that tokenizer with go generate (genbpe)
// and the tests check them against it, token by token.
package bpe

//go:generate go run ./genbpe -encoding o200k_base -out o200k.bpe
//go:generate go run ./genbpe -encoding cl100k_base -out cl100k.bpe
