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
	"github.com/blevesearch/bleve/v2/analysis/token/stop"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/whitespace"
	"github.com/blevesearch/bleve/v2/analysis/tokenmap"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	bindex "github.com/blevesearch/bleve_index_api"
)

// The analyzer for English-ish text: bleve's "en" chain (possessives,
// lower case, stop words, Porter stemming) after folding accents, so that
// "café" and "cafe" meet, with negations and quantifiers kept (see
// stopwords.go).
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
	fIdent = "ident" // identifiers as written (identTokens)
	fPairs = "pairs" // neighbouring word pairs (wordsAndPairs)
	fChunk = "chunk" // the whole Chunk as JSON, stored only
	// For Filter: the chunk's kind, and the first and last day it speaks
	// for (chunkDays); not scored.
	fKind = "kind"
	fFrom = "from"
	fTo   = "to"
)

// lenFields are the fields BM25 normalises by length; the index records
// each one's total length and how many chunks have it (fieldStats).
var lenFields = []string{fText, fName, fDesc, fHead, fCJK, fWhen, fIdent, fPairs}

func indexMapping() (mapping.IndexMapping, error) {
	im := bleve.NewIndexMapping()
	im.ScoringModel = bindex.BM25Scoring
	err := im.AddCustomTokenMap(stopWordsMap, map[string]interface{}{"type": tokenmap.Name, "tokens": stopWords()})
	if err == nil {
		err = im.AddCustomTokenFilter(stopFilter, map[string]interface{}{"type": stop.Name, "stop_token_map": stopWordsMap})
	}
	if err == nil {
		err = im.AddCustomAnalyzer(enFolded, map[string]interface{}{
			"type":          "custom",
			"char_filters":  []string{asciifolding.Name},
			"tokenizer":     unicode.Name,
			"token_filters": []string{en.PossessiveName, lowercase.Name, notFilter, stopFilter, porter.Name},
		})
	}
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
	for _, f := range []string{fWhen, fIdent, fPairs, fKind, fFrom, fTo} {
		dm.AddFieldMappingsAt(f, text(whenAnalyzer))
	}
	dm.AddFieldMappingsAt(fChunk, stored)
	im.DefaultMapping = dm
	im.DefaultAnalyzer = enFolded
	return im, nil
}

// bleveInput is what bleve indexes for a chunk, the length of each of
// its lenFields in terms, as bleve counts them, and those terms.
type bleveInput struct {
	doc   map[string]interface{}
	lens  fieldLens
	terms map[string][]string // by field
}

// bleveDoc is what bleve indexes for a chunk.
func bleveDoc(c Chunk) (bleveInput, error) {
	meta, err := json.Marshal(c)
	if err != nil {
		return bleveInput{}, fmt.Errorf("encode chunk %s: %w", c.ID, err)
	}
	a, err := analyzers()
	if err != nil {
		return bleveInput{}, err
	}
	byField := map[string][]string{}
	var ps []string
	heading := headingWords(c.Heading)
	for _, f := range []struct{ name, text string }{{fText, c.Text}, {fName, c.Name}, {fDesc, c.Description}, {fHead, heading}} {
		var fps []string
		byField[f.name], fps = wordsAndPairs(a.en, f.text)
		ps = append(ps, fps...)
	}
	all := c.Name + " " + c.Description + " " + c.Heading + " " + c.Text
	cjkText := cjkOnly(all)
	byField[fCJK] = terms(a.cjk, cjkText)
	byField[fWhen] = distinct(append(strings.Fields(whenTokens(dateKind(c), c.Date)), mentionTokens(dateKind(c), c.Date, c.Heading+"\n"+c.Text)...))
	when := strings.Join(byField[fWhen], " ")
	byField[fIdent] = identTokens(all)
	byField[fPairs] = ps
	lens := make(fieldLens, len(lenFields))
	for i, f := range lenFields {
		lens[i] = int64(len(byField[f]))
	}
	from, to := chunkDays(c)
	doc := map[string]interface{}{
		fKind:  c.Kind,
		fFrom:  from,
		fTo:    to,
		fText:  c.Text,
		fName:  c.Name,
		fDesc:  c.Description,
		fHead:  heading,
		fCJK:   cjkText,
		fWhen:  when,
		fIdent: strings.Join(byField[fIdent], " "),
		fPairs: strings.Join(ps, " "),
		fChunk: string(meta),
	}
	return bleveInput{doc, lens, byField}, nil
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

// chunkIDs lists a file's chunk IDs.
func chunkIDs(path string, n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = path + "#" + strconv.Itoa(i)
	}
	return ids
}
