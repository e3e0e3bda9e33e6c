package minilm_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/tmemhq/tmem/recall/minilm"
)

func ExampleOpen() {
	e, err := minilm.Open(minilm.Options{ModelDir: "testdata/tiny", Backend: minilm.BackendGo})
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
