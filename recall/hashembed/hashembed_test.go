package hashembed_test

import (
	"context"
	"testing"

	"github.com/tmemhq/tmem/recall/hashembed"
	"github.com/tmemhq/tmem/recall/recalltest"
)

func TestConformance(t *testing.T) {
	recalltest.Conformance(t, hashembed.Embedder{}, 384)
}

func TestSimilarTextsAreCloser(t *testing.T) {
	vs, err := hashembed.Embedder{}.Embed(context.Background(), []string{
		"the deploy pipeline failed on staging",
		"staging deploy failed in the pipeline again",
		"lunch menu for friday",
	})
	if err != nil {
		t.Fatal(err)
	}
	near, far := dot(vs[0], vs[1]), dot(vs[0], vs[2])
	if near <= far {
		t.Errorf("related texts score %.3f, unrelated %.3f: want related higher", near, far)
	}
}

func dot(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func TestGatedConformance(t *testing.T) {
	g := hashembed.NewGated()
	g.Open()
	recalltest.Conformance(t, g, hashembed.Dims)
}
