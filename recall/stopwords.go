package recall

import (
	"bytes"
	"sort"
	"strings"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/registry"
)

// Names of the English chain's own filters.
const (
	stopWordsMap = "tmem_stop_words"
	stopFilter   = "tmem_stop"
	notFilter    = "tmem_not"
)

// keptWords are English stop words that change what a line says: a
// negation ("won't", "never" is no stop word) or a quantifier ("both",
// "only"). Dropped, "Melanie did not go" matched a question about where
// she went as well as one about where she did not.
var keptWords = map[string]bool{
	"no": true, "nor": true, "not": true, "cannot": true,
	"all": true, "any": true, "both": true, "each": true, "few": true,
	"more": true, "most": true, "some": true, "only": true,
}

// stopWords is bleve's English stop list without keptWords and the
// contractions of "not", which the not filter turns into "not".
func stopWords() []interface{} {
	m := analysis.NewTokenMap()
	if err := m.LoadBytes(en.EnglishStopWords); err != nil {
		panic(err) // the list is compiled in
	}
	var out []string
	for w := range m {
		if !keptWords[w] && !strings.HasSuffix(w, "n't") {
			out = append(out, w)
		}
	}
	sort.Strings(out)
	ws := make([]interface{}, len(out))
	for i, w := range out {
		ws[i] = w
	}
	return ws
}

// notTokens turns the contractions of "not" (and "cannot") into "not",
// so that "won't" and "will not" meet.
type notTokens struct{}

func (notTokens) Filter(in analysis.TokenStream) analysis.TokenStream {
	for _, t := range in {
		if bytes.HasSuffix(t.Term, []byte("n't")) || string(t.Term) == "cannot" {
			t.Term = []byte("not")
		}
	}
	return in
}

func init() {
	registry.RegisterTokenFilter(notFilter, func(map[string]interface{}, *registry.Cache) (analysis.TokenFilter, error) {
		return notTokens{}, nil
	})
}
