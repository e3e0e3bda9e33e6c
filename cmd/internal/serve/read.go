package serve

import (
	"context"
	"fmt"
	"path"
	"strings"

	memctx "github.com/tmemhq/tmem/context"
	"github.com/tmemhq/tmem/recall"
)

// ContextInput asks for the prompt stack of a task.
type ContextInput struct {
	Teammate  string `json:"teammate,omitempty" jsonschema:"the teammate whose stack to build; defaults to the teammate the session is bound to"`
	Task      string `json:"task" jsonschema:"the task or user message: the last section of the stack and the recall query"`
	Budget    int    `json:"budget,omitempty" jsonschema:"memory budget in tokens, shared by recalled memories and daily logs; default 32000, at least 256"`
	Tokenizer string `json:"tokenizer,omitempty" jsonschema:"token counter: o200k (default), cl100k or chars4 (a cheap estimate)"`
}

// ContextOutput is the prompt stack and a summary of its manifest. The
// stack goes to the client once, as the result's text content; the
// structured content is the summary alone (a stack is some 100 KiB, and
// encoding it twice was a third of a call).
type ContextOutput struct {
	Teammate string `json:"teammate"`
	// Text is the prompt stack, byte for byte what tmem context prints.
	Text        string           `json:"-"`
	TotalTokens int              `json:"total_tokens"`
	Budget      memctx.Budget    `json:"budget"`
	RecallMode  string           `json:"recall_mode" jsonschema:"hybrid, bm25 or off"`
	Sections    []SectionSummary `json:"sections"`
	Notes       []string         `json:"notes,omitempty" jsonschema:"what the stack lost or bent: files left out, a failed recall, an exceeded budget"`
}

// SectionSummary is one section of the stack.
type SectionSummary struct {
	Name     string `json:"name"`
	Tokens   int    `json:"tokens"`
	InBudget bool   `json:"in_budget"`
}

// Context builds the prompt stack for a task.
func (s *Service) Context(ctx context.Context, in ContextInput) (ContextOutput, error) {
	name, err := s.scope.pick(in.Teammate)
	if err != nil {
		return ContextOutput{}, err
	}
	if err := s.checkTeammate(name); err != nil {
		return ContextOutput{}, err
	}
	if err := s.scope.canRead(name); err != nil {
		return ContextOutput{}, err
	}
	if in.Budget == 0 {
		in.Budget = memctx.DefaultBudget
	}
	if in.Budget < memctx.MinBudget {
		return ContextOutput{}, fmt.Errorf("budget %d: want at least %d tokens", in.Budget, memctx.MinBudget)
	}
	tok, err := s.tokenizer(in.Tokenizer)
	if err != nil {
		return ContextOutput{}, fmt.Errorf("tokenizer: %w", err)
	}
	s.ix.PrepareQuery(in.Task, []string{name}) // embedded while the stack's files are read
	res, err := memctx.Build(ctx, s.ws, memctx.Options{
		Teammate: name, Task: in.Task, Budget: in.Budget, Tokenizer: tok,
		Now: s.now, Location: s.loc, Recaller: recaller{s}, Cache: s.files, Warn: s.warn, IndexWait: s.wait,
	})
	if err != nil {
		return ContextOutput{}, err
	}
	m := res.Manifest
	out := ContextOutput{Teammate: name, Text: res.Text, TotalTokens: m.TotalTokens, Budget: m.Budget,
		RecallMode: string(m.Recall.Mode), Notes: m.Notes, Sections: []SectionSummary{}}
	for _, sec := range m.Sections {
		out.Sections = append(out.Sections, SectionSummary{Name: sec.Name, Tokens: sec.Tokens, InBudget: sec.InBudget})
	}
	return out, nil
}

// SearchInput is a recall query.
type SearchInput struct {
	Query     string   `json:"query" jsonschema:"what to look for, in words: keywords, names, identifiers or dates (2026-06-03, week 38 of 2026)"`
	Teammates []string `json:"teammates,omitempty" jsonschema:"teammates to search (with the shared CROSS-TEAM.md), each named once; default: the session's own teammate, or everyone the session may read"`
	K         int      `json:"k,omitempty" jsonschema:"how many hits; default 10, at most 100"`
	Kinds     []string `json:"kinds,omitempty" jsonschema:"only hits of these kinds: typed, weekly, monthly, daily, wisdom, crossteam, archive"`
	Since     string   `json:"since,omitempty" jsonschema:"only hits of days on or after this day, YYYY-MM-DD: a daily's day, a summary's whole period, another memory's date; undated hits are left out"`
	Until     string   `json:"until,omitempty" jsonschema:"only hits of days on or before this day, YYYY-MM-DD, as for since"`
}

// SearchOutput is the ranked hits, best first.
type SearchOutput struct {
	Mode  string      `json:"mode" jsonschema:"hybrid (BM25 and vectors) or bm25 (no embedding model)"`
	Hits  []SearchHit `json:"hits"`
	Notes []string    `json:"notes,omitempty" jsonschema:"what the search could not do: a query with no word to search for, files of the searched teammates left out of the index (file:line: why)"`
}

// SearchHit is one file's best passage.
type SearchHit struct {
	Ref string `json:"ref" jsonschema:"path:start-end, to pass to memory_get"`
	recall.Hit
	Cut string `json:"cut,omitempty" jsonschema:"why the text stops short of the hit's lines: hit (a hit shows at most 8 KiB) or answer (the hits of one answer show at most 128 KiB together); memory_get with the ref reads them"`
}

// Search runs a recall query within the session's scope.
func (s *Service) Search(ctx context.Context, in SearchInput) (SearchOutput, error) {
	if strings.TrimSpace(in.Query) == "" {
		return SearchOutput{}, fmt.Errorf("query is empty: say what to look for")
	}
	if in.K < 0 || in.K > 100 {
		return SearchOutput{}, fmt.Errorf("k %d: want 1 to 100", in.K)
	}
	if in.K == 0 {
		in.K = 10
	}
	f, err := searchFilter(in)
	if err != nil {
		return SearchOutput{}, err
	}
	names, err := s.searchNames(in.Teammates)
	if err != nil {
		return SearchOutput{}, err
	}
	var notes []string
	q := recall.Query{Text: in.Query, Teammates: names, K: in.K, Filter: f, Now: s.localNow()}
	q.NotIndexed = func(why []string) { notes = recall.NotIndexedNotes(why) }
	hits, err := s.search(ctx, q)
	if err != nil {
		return SearchOutput{}, err
	}
	out := SearchOutput{Mode: recall.ModeBM25, Hits: []SearchHit{}, Notes: notes}
	if s.ix.HasVectors() {
		out.Mode = recall.ModeHybrid
	}
	for _, h := range hits[:min(len(hits), in.K)] { // k at most, the recency pass's too
		out.Hits = append(out.Hits, SearchHit{Ref: fmt.Sprintf("%s:%d-%d", h.Path, h.StartLine, h.EndLine), Hit: h})
	}
	boundHits(out.Hits)
	if out.Mode == recall.ModeBM25 && !matched(hits) && !recall.HasWords(in.Query, s.localNow()) {
		out.Notes = append(out.Notes, noWordsNote)
	}
	return out, nil
}

// searchNames is the teammates a search covers: those asked for, each
// once, every one a teammate the session may read. A list longer than the
// team can only repeat names, and is refused before any is looked at.
func (s *Service) searchNames(asked []string) ([]string, error) {
	if err := s.checkListLength(asked); err != nil {
		return nil, err
	}
	names, err := s.scope.searchable(unique(asked))
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		if err := s.checkTeammate(n); err != nil {
			return nil, err
		}
	}
	return names, nil
}

// checkListLength refuses a list of more names than the team has; the
// team is listed only for a list of two or more (a search usually names
// one teammate or none, and this is on every search's path).
func (s *Service) checkListLength(asked []string) error {
	if len(asked) < 2 {
		return nil
	}
	team, err := s.ws.Teammates()
	if err != nil {
		return err
	}
	if len(asked) > len(team) {
		return fmt.Errorf("teammates: %d names, but the workspace has %d teammates: name each at most once", len(asked), len(team))
	}
	return nil
}

// unique is list without repeats, in order.
func unique(list []string) []string {
	var out []string
	for _, x := range list {
		if !contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// noWordsNote tells a caller why a BM25 search found nothing but recent
// memories (the server's own log has the same notice).
const noWordsNote = "the query holds no word to search for: stop words, punctuation, symbols and emoji are not indexed, and without an embedding model nothing else searches them; ask with words"

// matched reports whether a hit was found by the query's words or vector
// rather than only by the recency pass.
func matched(hits []recall.Hit) bool {
	for _, h := range hits {
		if contains(h.Reason, "bm25") || contains(h.Reason, "vector") {
			return true
		}
	}
	return false
}

// searchFilter is the recall filter of a search's kinds and days: nil
// when it asks for none.
func searchFilter(in SearchInput) (*recall.Filter, error) {
	if len(in.Kinds) == 0 && in.Since == "" && in.Until == "" {
		return nil, nil
	}
	f := &recall.Filter{Kinds: in.Kinds, Since: in.Since, Until: in.Until}
	return f, f.Check()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// checkReadable allows a Markdown file inside the workspace, outside
// dot-folders (indexes, locks, scratch), that the session may read.
func (s *Service) checkReadable(rel string) error {
	if rel == "" {
		return fmt.Errorf("path is empty: name a memory file such as beacon/memory/2026-03-14.md")
	}
	clean := path.Clean(rel)
	if path.IsAbs(rel) || strings.Contains(rel, "\\") || clean != rel || clean == ".." || strings.HasPrefix(clean, "../") {
		return fmt.Errorf("path %q: want a clean path relative to the workspace, inside it", rel)
	}
	if path.Ext(clean) != ".md" {
		return fmt.Errorf("path %q: only memory files (.md) can be read", rel)
	}
	parts := strings.Split(clean, "/")
	for _, p := range parts {
		if strings.HasPrefix(p, ".") {
			return fmt.Errorf("path %q: files under dot-folders (indexes, locks, scratch) are not memory", rel)
		}
	}
	if len(parts) == 1 {
		if clean != "CROSS-TEAM.md" {
			return fmt.Errorf("path %q: the only memory file at the top is CROSS-TEAM.md", rel)
		}
		return nil
	}
	if parts[0] == "templates" {
		return nil
	}
	if err := s.checkTeammate(parts[0]); err != nil {
		return fmt.Errorf("path %q: %w", rel, err)
	}
	return s.scope.canRead(parts[0])
}
