package recall

import (
	"strings"
	"testing"

	"github.com/tmemhq/tmem/recall/hashembed"
)

// TestNoWordsNoted checks that a query BM25 has no word for (emoji,
// symbols, stop words) is said to be one, once a search, when nothing
// else searches it, and that queries with a word, or searched by vectors
// too, are not.
func TestNoWordsNoted(t *testing.T) {
	const notice = "the query holds no word to search for"
	tests := []struct {
		query   string
		vectors bool
		want    bool
	}{
		{"🚀", false, true},
		{"✅ ✅ → !!", false, true},
		{"the of and", false, true},
		{"🚀 alias", false, false},
		{"not", false, false}, // negations are kept
		{"🚀", true, false},    // the vector search still has it
	}
	for _, tt := range tests {
		ws := syncedWorkspace(t, tt.vectors)
		opts := Options{}
		if tt.vectors {
			opts.Embedder = hashembed.Embedder{}
		}
		ix, warn := openIndex(t, ws, opts)
		runSearch(t, ix, Query{Text: tt.query, Teammates: []string{"beacon"}})
		if got := strings.Count(warn.String(), notice); got != map[bool]int{true: 1}[tt.want] {
			t.Errorf("%q (vectors %v): notice given %d times; warnings:\n%s", tt.query, tt.vectors, got, warn)
		}
	}
}
