package main

import (
	"os"
)

func main() {
	f := newFactory(os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	os.Exit(run(f, os.Args[1:]))
}
