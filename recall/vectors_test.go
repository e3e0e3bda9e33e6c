package recall

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/tmemhq/tmem/recall/hashembed"
)

func TestVectorFileRoundTrip(t *testing.T) {
	vs := newVectorSet("test-model", hashembed.Dims)
	var texts []string
	for i := 0; i < 200; i++ {
		texts = append(texts, fmt.Sprintf("memory %d about topic %d and thing %d", i, i%7, i%13))
	}
	for i, tx := range texts {
		vs.add(fmt.Sprintf("p%d#0", i), hashText(tx), hashembed.Vector(tx))
	}
	b := vs.encode()
	t.Run("full decode", func(t *testing.T) {
		back, err := decodeVectors(b)
		if err != nil {
			t.Fatal(err)
		}
		if back.identity != "test-model" || back.len() != 200 || back.ids[199] != "p199#0" || back.hashes[5] != hashText(texts[5]) {
			t.Errorf("decoded set differs: %s %d", back.identity, back.len())
		}
	})
	t.Run("search agrees with float dot products", func(t *testing.T) {
		v, err := viewVectors(b)
		if err != nil {
			t.Fatal(err)
		}
		q := hashembed.Vector("topic 3 thing 5")
		got := searchViews([]*vecView{v}, q, 5)
		type ex struct {
			id string
			s  float64
		}
		var exact []ex
		for i, tx := range texts {
			var d float64
			for j, x := range hashembed.Vector(tx) {
				d += float64(x * q[j])
			}
			exact = append(exact, ex{fmt.Sprintf("p%d#0", i), d})
		}
		sort.Slice(exact, func(i, j int) bool { return exact[i].s > exact[j].s })
		if len(got) != 5 || got[0].id != exact[0].id {
			t.Fatalf("top hits %v, exact best %v", got, exact[:5])
		}
		for i, g := range got {
			if d := g.score - exact[i].s; d > 0.03 || d < -0.03 {
				t.Errorf("hit %d score %.4f, exact %.4f", i, g.score, exact[i].s)
			}
		}
	})
	t.Run("damage is detected", func(t *testing.T) {
		bad := append([]byte(nil), b...)
		bad[len(bad)/2] ^= 0xff
		if _, err := viewVectors(bad); !errors.Is(err, errCorrupt) {
			t.Errorf("flipped byte: err %v, want errCorrupt", err)
		}
		if _, err := decodeVectors(b[:len(b)-10]); !errors.Is(err, errCorrupt) {
			t.Errorf("truncated: err %v, want errCorrupt", err)
		}
	})
}

// TestSketchPrefilter checks that on a set large enough for the sign
// sketch pass, the results match an exhaustive scan for dense vectors.
func TestSketchPrefilter(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	dense := func() []float32 {
		v := make([]float32, 384)
		var n float64
		for j := range v {
			v[j] = float32(r.NormFloat64())
			n += float64(v[j] * v[j])
		}
		for j := range v {
			v[j] /= float32(math.Sqrt(n))
		}
		return v
	}
	const rows = 3 * exactBelow
	vs := newVectorSet("dense", 384)
	var all [][]float32
	for i := 0; i < rows; i++ {
		v := dense()
		all = append(all, v)
		vs.add(fmt.Sprintf("r%d", i), textHash{}, v)
	}
	// Two views, as when several teammates are searched together.
	half := newVectorSet("dense", 384)
	rest := newVectorSet("dense", 384)
	for i := range all {
		if i < rows/2 {
			half.addRow(vs.ids[i], vs, i)
		} else {
			rest.addRow(vs.ids[i], vs, i)
		}
	}
	var views []*vecView
	for _, set := range []*vectorSet{half, rest} {
		v, err := viewVectors(set.encode())
		if err != nil {
			t.Fatal(err)
		}
		views = append(views, v)
	}
	found, total := 0, 0
	for qn := 0; qn < 20; qn++ {
		// A query near a known row, as real queries are near their answers.
		base := all[r.IntN(rows)]
		q := make([]float32, 384)
		noise := dense()
		for j := range q {
			q[j] = base[j] + 0.8*noise[j]
		}
		type ex struct {
			id string
			s  float32
		}
		var exact []ex
		for i, v := range all {
			var d float32
			for j := range v {
				d += v[j] * q[j]
			}
			exact = append(exact, ex{fmt.Sprintf("r%d", i), d})
		}
		sort.Slice(exact, func(i, j int) bool { return exact[i].s > exact[j].s })
		got := map[string]bool{}
		for _, h := range searchViews(views, q, 10) {
			got[h.id] = true
		}
		for _, e := range exact[:10] {
			total++
			if got[e.id] {
				found++
			}
		}
		if !got[exact[0].id] {
			t.Errorf("query %d: the exact best row %s is missing", qn, exact[0].id)
		}
	}
	if recall := float64(found) / float64(total); recall < 0.9 {
		t.Errorf("top-10 recall against an exhaustive scan %.2f, want at least 0.9", recall)
	} else {
		t.Logf("top-10 recall against an exhaustive scan: %.3f", recall)
	}
}
