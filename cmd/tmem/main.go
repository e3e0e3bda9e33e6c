// Command tmem manages a Markdown memory workspace for AI teammates.
package main

import "os"

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int { return 0 }
