//go:build !cgo

package minilm

import (
	"context"
	"testing"

	"github.com/tmemhq/tmem/recall/minilm/minilmtest"
)

// TestNoCgoRunsORT is compiled only without cgo (.ci/run runs this package
// with CGO_ENABLED=0): such a binary must pick ONNX Runtime on its own and
// give the Go backend's vectors.
func TestNoCgoRunsORT(t *testing.T) {
	lib := minilmtest.RequireORT(t)
	e := openAutoWithLib(t, lib)
	if e.Backend() != BackendORT {
		t.Fatalf("backend %q without cgo (fallback: %s)", e.Backend(), e.Fallback())
	}
	texts := []string{"The cat sits on the mat", "naïve café"}
	got, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	want, err := openTiny(t, BackendGo).Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range texts {
		if d := maxAbsDiff32(got[i], want[i]); d > 1e-4 {
			t.Errorf("text %d: max abs diff %g > 1e-4", i, d)
		}
	}
}
