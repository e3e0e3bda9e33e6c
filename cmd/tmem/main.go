package main

import (
	"os"
	_ "time/tzdata" // --tz works where the system has no zone database (Windows without Go, minimal containers)
)

func main() {
	f := newFactory(os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	os.Exit(run(f, os.Args[1:]))
}
