package minilm_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"testing"

	"github.com/tmemhq/tmem/recall/minilm"
)

// modelDir is a copy of testdata/tiny: opening a model writes a sums cache
// into its folder, and tests never write into the source tree.
var modelDir string

func TestMain(m *testing.M) {
	tmp, err := os.MkdirTemp("", "minilm-example-")
	if err != nil {
		log.Fatal(err)
	}
	modelDir = filepath.Join(tmp, "tiny")
	if err := os.CopyFS(modelDir, os.DirFS("testdata/tiny")); err != nil {
		log.Fatal(err)
	}
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}

func ExampleOpen() {
	e, err := minilm.Open(minilm.Options{ModelDir: modelDir, Backend: minilm.BackendGo})
	if errors.Is(err, minilm.ErrNoModel) {
		fmt.Println("keyword recall only:", err)
		return
	}
	if err != nil {
		log.Fatal(err)
	}
	defer e.Close()
	vecs, err := e.Embed(context.Background(), []string{"The cat sits on the mat", "naïve café"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(vecs), e.Dim(), e.Backend())
	// Output: 2 32 go
}

func ExampleOpen_noModel() {
	_, err := minilm.Open(minilm.Options{ModelDir: "testdata/no-such-model"})
	fmt.Println(errors.Is(err, minilm.ErrNoModel))
	fmt.Println(err)
	// Output:
	// true
	// no embedding model: model.onnx not found in testdata/no-such-model; run 'tmem model pull'
}
