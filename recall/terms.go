package recall

import (
	"strings"
	"sync"
	"unicode"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/mapping"
)

// analyzers are the index mapping's English and CJK analyzers, built once:
// documents and queries are analysed here, outside bleve, so that the
// identifier and word-pair fields and the field lengths come from the same
// tokens bleve indexes.
var analyzers = sync.OnceValues(func() (*analyzerSet, error) {
	im, err := indexMapping()
	if err != nil {
		return nil, err
	}
	impl := im.(*mapping.IndexMappingImpl)
	return &analyzerSet{en: impl.AnalyzerNamed(enFolded), cjk: impl.AnalyzerNamed(cjk.AnalyzerName)}, nil
})

type analyzerSet struct{ en, cjk analysis.Analyzer }

// terms returns the analysed terms of s, in order.
func terms(a analysis.Analyzer, s string) []string {
	if s == "" {
		return nil
	}
	ts := a.Analyze([]byte(s))
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = string(t.Term)
	}
	return out
}

// pairs returns the neighbouring analysed terms of s joined by a space:
// a query's pair that a chunk holds too is its words in that order, with
// at most stop words between them. Pairs reward an exact run of words.
func pairs(ws []string) []string {
	if len(ws) < 2 {
		return nil
	}
	out := make([]string, 0, len(ws)-1)
	for i := 1; i < len(ws); i++ {
		out = append(out, ws[i-1]+"\x1f"+ws[i])
	}
	return out
}

// identTokens returns the identifiers in s, whole and lower-cased, as
// written: words with a digit or an inner '_', '-', '.', '/', ':', '%',
// '@', '#', '?', '=' or '&' in them, such as ERR_REPLICA_LAG, 0.07%, us-east-1, DX-8047,
// v1.7, recall/search.go or a URL. The English analyzer splits or drops
// most of them; this field keeps them for exact matching.
func identTokens(s string) []string {
	var out []string
	for _, f := range strings.Fields(s) {
		f = strings.TrimRight(strings.TrimLeft(f, identTrim), identTrim+".")
		if isIdent(f) {
			out = append(out, strings.ToLower(f))
		}
	}
	return out
}

// identTrim is what an identifier does not start or end with: quotes,
// brackets and sentence punctuation around it.
const identTrim = "\"'`()[]{}<>,;:!?*"

func isIdent(f string) bool {
	alnum, digit, inner := 0, false, false
	for i, r := range f {
		switch {
		case unicode.IsDigit(r):
			digit = true
			alnum++
		case unicode.IsLetter(r):
			alnum++
		case strings.ContainsRune("_-./:%@#+?=&~", r):
			inner = inner || (i > 0 && i < len(f)-1) || r == '%'
		default:
			return false
		}
	}
	return alnum > 0 && (digit || inner)
}
