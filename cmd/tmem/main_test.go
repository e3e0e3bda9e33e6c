package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
			// The user's configuration folder (trusted settings), the
			// script's own.
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(env.WorkDir, ".config"))
			// The pinned model's real config and tokenizer files.
			env.Setenv("PINNED_MODEL", minilmtest.PinnedDir())
			// The ONNX Runtime library to test with, when there is one; the
			// [ort] condition says so.
			env.Setenv("TMEM_ORT_LIB", "")
			env.Setenv("ORT_LIB", os.Getenv("TMEM_ORT_LIB"))
			return nil
		},
		Condition: func(cond string) (bool, error) {
			if cond != "ort" {
				return false, fmt.Errorf("unknown condition %q", cond)
			}
			if os.Getenv("TMEM_ORT_LIB") == "" && os.Getenv("CI") == "true" {
				return false, errors.New("[ort]: TMEM_ORT_LIB must be set under CI (run .ci/setup-embed)")
			}
			return os.Getenv("TMEM_ORT_LIB") != "", nil
		},
		Cmds: scriptCmds,
	})
}
