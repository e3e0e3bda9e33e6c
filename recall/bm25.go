package recall

import (
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/blevesearch/bleve/v2"
	_ "github.com/blevesearch/bleve/v2/analysis/analyzer/custom" // registers the "custom" analyzer type
	"github.com/blevesearch/bleve/v2/analysis/char/asciifolding"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/whitespace"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
	bindex "github.com/blevesearch/bleve_index_api"
)

// The analyzer for English-ish text: bleve's "en" chain (possessives,
// lower case, stop words, Porter stemming) after folding accents, so that
// "café" and "cafe" meet.
const enFolded = "tmem_en"

// The analyzer for the date tokens (see dates.go).
const whenAnalyzer = "tmem_when"

// Field names in the bleve documents.
const (
	fText  = "text"
	fName  = "name"
	fDesc  = "description"
	fHead  = "heading"
	fCJK   = "text_cjk"
	fWhen  = "when"  // date tokens
	fChunk = "chunk" // the whole Chunk as JSON, stored only
)

// Field boosts in the BM25 query: a memory's name says what it is about
// more surely than any sentence in it.
var fieldBoosts = map[string]float64{fText: 1, fName: 3, fDesc: 2, fHead: 1.5, fCJK: 1, fWhen: 2}

func indexMapping() (mapping.IndexMapping, error) {
	im := bleve.NewIndexMapping()
	im.ScoringModel = bindex.BM25Scoring
	err := im.AddCustomAnalyzer(enFolded, map[string]interface{}{
		"type":          "custom",
		"char_filters":  []string{asciifolding.Name},
		"tokenizer":     unicode.Name,
		"token_filters": []string{en.PossessiveName, lowercase.Name, en.StopName, porter.Name},
	})
	if err == nil {
		err = im.AddCustomAnalyzer(whenAnalyzer, map[string]interface{}{
			"type":      "custom",
			"tokenizer": whitespace.Name,
		})
	}
	if err != nil {
		return nil, fmt.Errorf("index mapping: %w", err)
	}
	text := func(analyzer string) *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Analyzer = analyzer
		f.Store = false
		f.IncludeInAll = false
		f.IncludeTermVectors = false
		f.DocValues = false
		return f
	}
	stored := bleve.NewTextFieldMapping()
	stored.Index = false
	stored.Store = true
	stored.IncludeInAll = false
	stored.DocValues = false
	dm := bleve.NewDocumentStaticMapping()
	for _, f := range []string{fText, fName, fDesc, fHead} {
		dm.AddFieldMappingsAt(f, text(enFolded))
	}
	dm.AddFieldMappingsAt(fCJK, text(cjk.AnalyzerName))
	dm.AddFieldMappingsAt(fWhen, text(whenAnalyzer))
	dm.AddFieldMappingsAt(fChunk, stored)
	im.DefaultMapping = dm
	im.DefaultAnalyzer = enFolded
	return im, nil
}

// bleveDoc is what bleve indexes for a chunk.
func bleveDoc(c Chunk) (map[string]interface{}, error) {
	meta, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("encode chunk %s: %w", c.ID, err)
	}
	return map[string]interface{}{
		fText:  c.Text,
		fName:  c.Name,
		fDesc:  c.Description,
		fHead:  c.Heading,
		fCJK:   cjkOnly(c.Name + " " + c.Description + " " + c.Heading + " " + c.Text),
		fWhen:  whenTokens(dateKind(c), c.Date),
		fChunk: string(meta),
	}, nil
}

func createBleve(path string) (bl bleve.Index, err error) {
	m, err := indexMapping()
	if err != nil {
		return nil, err
	}
	err = guard("create bleve", func() (err error) {
		bl, err = bleve.NewUsing(path, m, scorch.Name, scorch.Name, nil)
		return err
	})
	return bl, err
}

// openBleve opens a bleve index whose files verifyStore has checked.
// Only a sync opens it for writing; bleve then merges and rewrites files
// in the background, which the sync records once it has closed it.
func openBleve(path string, readOnly bool) (bl bleve.Index, err error) {
	cfg := map[string]interface{}{}
	if readOnly {
		cfg["read_only"] = true
	}
	err = guard("open bleve", func() (err error) {
		bl, err = bleve.OpenUsing(path, cfg)
		return err
	})
	return bl, err
}

// guard runs f, which calls into the index library, and turns a panic in
// it into an errCorrupt error. bleve, its segments and bolt trust the
// bytes they read; files are checked before they are opened, so a panic
// means a file changed underneath (a mapped file cut short faults, which
// SetPanicOnFault turns into a panic here) or a bug: either way the index
// is rebuilt rather than the process dying. Only panics on the calling
// goroutine can be caught, which is why the files are checked first.
func guard(what string, f func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: index library failed: %v: %w", what, r, errCorrupt)
		}
	}()
	return f()
}

// bm25Query matches the text against every analysed field; the CJK field
// only when the text has CJK characters in it.
func bm25Query(text string) query.Query {
	var qs []query.Query
	for _, f := range []string{fText, fName, fDesc, fHead} {
		m := bleve.NewMatchQuery(text)
		m.SetField(f)
		m.SetBoost(fieldBoosts[f])
		qs = append(qs, m)
	}
	if c := cjkOnly(text); c != "" {
		m := bleve.NewMatchQuery(c)
		m.SetField(fCJK)
		m.SetBoost(fieldBoosts[fCJK])
		qs = append(qs, m)
	}
	if when := queryWhen(text); len(when) > 0 {
		m := bleve.NewMatchQuery(strings.Join(when, " "))
		m.SetField(fWhen)
		m.SetBoost(fieldBoosts[fWhen])
		qs = append(qs, m)
	}
	return bleve.NewDisjunctionQuery(qs...)
}

// chunkIDs lists a file's chunk IDs.
func chunkIDs(path string, n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = path + "#" + strconv.Itoa(i)
	}
	return ids
}
