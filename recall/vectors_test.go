package recall

import (
	"errors"
	"fmt"
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
		got := v.search(q, 5)
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
