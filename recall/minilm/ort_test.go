package minilm

import (
	"context"
	"testing"

	"github.com/tmemhq/tmem/recall/minilm/minilmtest"
)

func TestORTMatchesGo(t *testing.T) {
	lib := minilmtest.RequireORT(t)
	texts := make([]string, len(referenceCases))
	for i, c := range referenceCases {
		texts[i] = c.text
	}
	goE := openTiny(t, BackendGo)
	ortE, err := Open(Options{ModelDir: tinyModel(t), Backend: BackendORT, ORTLib: lib})
	if err != nil {
		t.Fatal(err)
	}
	defer ortE.Close()
	if ortE.Backend() != BackendORT {
		t.Fatalf("backend %q", ortE.Backend())
	}
	if ortE.Identity() != goE.Identity() {
		t.Errorf("identity differs: ort %q, go %q", ortE.Identity(), goE.Identity())
	}
	want, err := goE.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ortE.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range referenceCases {
		t.Run(c.name, func(t *testing.T) {
			if d := maxAbsDiff32(got[i], want[i]); d > 1e-4 {
				t.Errorf("max abs diff %g > 1e-4", d)
			}
		})
	}
}

func TestORTMatchesReference(t *testing.T) {
	lib := minilmtest.RequireORT(t)
	texts := make([]string, len(referenceCases))
	for i, c := range referenceCases {
		texts[i] = c.text
	}
	ref := runReference(t, tinyDir, texts, false)
	got, _ := embedOnce(t, Options{ModelDir: tinyModel(t), Backend: BackendORT, ORTLib: lib}, texts)
	for i, c := range referenceCases {
		t.Run(c.name, func(t *testing.T) {
			if d := maxAbsDiff(got[i], ref.Vectors[i]); d > 1e-4 {
				t.Errorf("max abs diff %g > 1e-4", d)
			}
		})
	}
}

func TestAutoPicksORT(t *testing.T) {
	lib := minilmtest.RequireORT(t)
	e := openAutoWithLib(t, lib)
	if e.Backend() != BackendORT {
		t.Errorf("auto chose %q with a library at hand", e.Backend())
	}
}

func TestORTConcurrent(t *testing.T) {
	lib := minilmtest.RequireORT(t)
	e, err := Open(Options{ModelDir: tinyModel(t), Backend: BackendORT, ORTLib: lib, BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	checkConcurrent(t, e)
}
