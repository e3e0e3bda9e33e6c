package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/tmemhq/tmem/recall/minilm/minilmtest"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"tmem": func() {
			f := newFactory(os.Stdin, os.Stdout, os.Stderr, os.Getenv)
			os.Exit(run(f, os.Args[1:]))
		},
	})
}

// TestScripts runs the CLI end to end: cmd/tmem/testdata/script/*.txtar.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("TMEM_NOW", "")
			env.Setenv("TMEM_DIR", "")
			env.Setenv("TMEM_MODEL", "")
			env.Setenv("TMEM_MODEL_BASE_URL", "")
			// The pinned model's real config and tokenizer files.
			env.Setenv("PINNED_MODEL", minilmtest.PinnedDir())
			return nil
		},
		Cmds: scriptCmds,
	})
}
