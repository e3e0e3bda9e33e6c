// Command genbpe writes the precompiled vocabulary table of a tiktoken
// encoding, read from github.com/tiktoken-go/tokenizer:
//
//	go run ./genbpe -encoding o200k_base -out o200k.bpe
//
// The vocabulary's ranks must run from 0 without gaps (special tokens,
// which counting never produces, are left out). genbpe builds on package
// bpe, which embeds the tables: to start without them, create the two
// files empty first.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/tiktoken-go/tokenizer"

	"github.com/tmemhq/tmem/context/internal/bpe"
)

// maxRank bounds the search for ranks: past the vocabulary, Decode fails.
const maxRank = 1 << 20

func main() {
	enc := flag.String("encoding", "", "tiktoken encoding (o200k_base, cl100k_base)")
	out := flag.String("out", "", "table file to write")
	flag.Parse()
	if err := run(tokenizer.Encoding(*enc), *out); err != nil {
		fmt.Fprintf(os.Stderr, "genbpe: %v\n", err)
		os.Exit(1)
	}
}

func run(enc tokenizer.Encoding, out string) error {
	if enc == "" || out == "" {
		return errors.New("-encoding and -out are required")
	}
	tokens, err := vocabulary(enc)
	if err != nil {
		return err
	}
	b, err := bpe.BuildTable(tokens)
	if err != nil {
		return fmt.Errorf("%s: %w", enc, err)
	}
	return os.WriteFile(out, b, 0o644)
}

// vocabulary returns the tokens of enc by rank, decoding each rank alone.
func vocabulary(enc tokenizer.Encoding) ([]string, error) {
	codec, err := tokenizer.Get(enc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", enc, err)
	}
	var tokens []string
	gap := -1
	for r := range maxRank {
		s, err := codec.Decode([]uint{uint(r)})
		if err != nil || s == "" {
			if gap < 0 {
				gap = r
			}
			continue
		}
		if gap >= 0 {
			return nil, fmt.Errorf("%s: rank %d has a token but rank %d has none", enc, r, gap)
		}
		tokens = append(tokens, s)
	}
	if len(tokens) == 0 {
		return nil, fmt.Errorf("%s: no tokens", enc)
	}
	return tokens, nil
}
