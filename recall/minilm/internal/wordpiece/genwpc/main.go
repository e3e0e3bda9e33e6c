// Command genwpc compiles a tokenizer.json into the form package wordpiece
// embeds and reads in place (see wordpiece.Compile):
//
//	go run ./genwpc -in ../../testdata/pinned/tokenizer.json -out minilm.wpc
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/tmemhq/tmem/recall/minilm/internal/wordpiece"
)

func main() {
	in := flag.String("in", "", "tokenizer.json to compile")
	out := flag.String("out", "", "file to write")
	flag.Parse()
	if err := run(*in, *out); err != nil {
		fmt.Fprintf(os.Stderr, "genwpc: %v\n", err)
		os.Exit(1)
	}
}

func run(in, out string) error {
	if in == "" || out == "" {
		return errors.New("-in and -out are required")
	}
	config, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	b, err := wordpiece.Compile(config)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	return os.WriteFile(out, b, 0o644)
}
