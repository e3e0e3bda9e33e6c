package recall

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestBatchBounds checks that a batch is full at maxBatchChunks chunks
// when their words repeat, and at maxBatchTerms distinct terms, long
// before that, when every word is new.
func TestBatchBounds(t *testing.T) {
	bl, err := createBleve(filepath.Join(t.TempDir(), "bleve"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bl.Close() })
	tests := []struct {
		name  string
		words func(chunk int) []string
		full  int // the chunk that fills the batch, counting from 1
	}{
		{"words repeated", func(int) []string { return numbered("word", 0, 100) }, maxBatchChunks},
		{"every word new", func(c int) []string { return numbered("word", c*1000, 1000) }, maxBatchTerms / 1000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bt := &batcher{b: bl.NewBatch()}
			for c := 1; c <= tt.full; c++ {
				ws := tt.words(c)
				if err := bt.b.Index(fmt.Sprint(c), map[string]interface{}{fText: strings.Join(ws, " ")}); err != nil {
					t.Fatal(err)
				}
				if full := bt.add(map[string][]string{fText: ws}); full != (c == tt.full) {
					t.Fatalf("chunk %d of %d distinct terms: full %v", c, bt.nterms, full)
				}
			}
		})
	}
}

// TestSyncBigFileOfNewWords indexes one file of more distinct words than a
// batch holds: it is applied in a few batches, not one and not one a
// chunk, and its first and last chunks are both found.
func TestSyncBigFileOfNewWords(t *testing.T) {
	var b strings.Builder
	b.WriteString("# 2025-06-10\n")
	const words = 100 // a chunk's words, and about as many pairs
	entries := maxBatchTerms/words + 1
	for e := 0; e < entries; e++ {
		fmt.Fprintf(&b, "\n## Entry %d\n\n%s\n", e, strings.Join(numbered("zq", e*words, words), " "))
	}
	ws := exactWorkspace(t, map[string]string{"2025-06-10.md": b.String()})
	ix, _ := openIndex(t, ws, Options{})
	st, err := ix.Sync(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if most := 2*entries*words/maxBatchTerms + 1; st.batches < 2 || st.batches > most {
		t.Errorf("%d chunks of new words applied in %d batches, want 2 to %d", st.Chunks, st.batches, most)
	}
	for _, e := range []int{0, entries - 1} {
		word := numbered("zq", e*words+50, 1)[0]
		hs := runSearch(t, ix, Query{Text: word, Mode: ModeBM25, RecencyDepth: -1})
		if len(hs) != 1 || !strings.Contains(hs[0].Text, word) {
			t.Errorf("%s (entry %d): %d hits, want the entry", word, e, len(hs))
		}
	}
}

// numbered returns n distinct words: prefix and the consonants that spell
// from, from+1, … (no vowel, "s" or "y", so that no stemmer rule joins
// two of them).
func numbered(prefix string, from, n int) []string {
	out := make([]string, n)
	for i := range out {
		v := from + i
		w := []byte(prefix)
		for {
			w = append(w, consonants[v%len(consonants)])
			v /= len(consonants)
			if v == 0 {
				break
			}
		}
		out[i] = string(w)
	}
	return out
}

const consonants = "bcdfghjkmnpqrtvwxz"
