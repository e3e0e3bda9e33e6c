package context

import (
	"cmp"
	"context"
	"fmt"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/tmemhq/tmem/internal/quote"
	"github.com/tmemhq/tmem/recall"
)

const recallHeading = "Relevant memories"

// Recall modes, as reported in RecallReport.Mode.
const (
	RecallHybrid = "hybrid"
	RecallBM25   = "bm25"
	RecallOff    = "off"
)

// recallSection asks recall for memories relevant to the task and fits
// them into what the daily logs left of the budget. Hits are taken best
// score first; one that fits goes in whole, one that does not is dropped
// whole and the next, lower-scored ones are still tried (recalled
// memories are independent of each other, unlike a day's log). Hits that
// score below the relevance floor (a share of the best hit's score) are
// left out whatever room is left, and hits that are already in the stack (SOUL.md, GOALS.md, WISDOM.md, an injected
// daily entry) or that repeat a better hit of the same lines are dropped.
func (b *builder) recallSection(ctx context.Context, opts Options) (section, error) {
	bu := &b.man.Budget
	granted := max(bu.Total-bu.DailiesUsed, 0)
	bu.RecallGranted = granted
	rep := &b.man.Recall
	rep.Query, rep.K, rep.Items = recall.SearchedText(opts.Task), recallK(opts.RecallK, granted), []RecallItem{}
	hits, err := b.recallHits(ctx, opts.Recaller, cmp.Or(opts.IndexWait, DefaultIndexWait))
	if err != nil {
		return section{}, err
	}
	sortHits(hits)
	rep.Floor = floorScore(hits, opts.RecallFloor)
	head := block{"# " + recallHeading + "\n\n", 0}
	head.tokens = b.tok.Count(head.text)
	items, blocks, hidden := b.decideHits(hits, head.tokens, granted, rep.Floor)
	n := b.fitRecall(head, items, blocks, granted)
	var sources []string
	for i, it := range items {
		if it.Decision == Included {
			sources = append(sources, fmt.Sprintf("%s:%d-%d", it.Path, it.StartLine, it.EndLine))
			b.man.Redactions = append(b.man.Redactions, hidden[i]...)
		}
	}
	rep.Items = items
	bu.RecallUsed = n
	return section{
		Section: Section{Name: SectionRecall, Heading: recallHeading, Tokens: n, InBudget: true, Sources: sources},
		text:    joinBlocks(b.renderRecall(head, items, blocks)),
	}, nil
}

// recallK is how many hits to ask for: k when set, else one per
// RecallTokensPerHit granted tokens, within DefaultRecallK and MaxRecallK.
func recallK(k, granted int) int {
	if k <= 0 {
		k = min(max(DefaultRecallK, granted/RecallTokensPerHit), MaxRecallK)
	}
	return k
}

// recallHits runs the manifest's recall query with r, waiting at most
// wait for its index, noting the recall mode. A failed search is noted and gives no hits, unless ctx was
// cancelled: then the build stops.
func (b *builder) recallHits(ctx context.Context, r Recaller, wait time.Duration) ([]recall.Hit, error) {
	rep := &b.man.Recall
	if r == nil {
		rep.Mode = RecallOff
		b.man.Notes = append(b.man.Notes, "no recall index: the stack has no recalled memories")
		return nil, nil
	}
	rep.HasVectors = r.HasVectors()
	rep.Mode = RecallHybrid
	if !rep.HasVectors {
		rep.Mode = RecallBM25
		b.man.Notes = append(b.man.Notes, "no embedding model: recall ranked memories by BM25 keywords only")
	}
	q := recall.Query{Text: rep.Query, Teammates: []string{b.mate.Name}, K: rep.K, Now: b.now, Shown: b.shownDailies(), LockWait: wait}
	q.NotIndexed = func(why []string) { b.man.Notes = append(b.man.Notes, recall.NotIndexedNotes(why)...) }
	hits, err := r.Search(ctx, q)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("build context: recall: %w", ctx.Err())
		}
		rep.Error = err.Error()
		b.warn("recall failed, the stack has no recalled memories: " + err.Error())
		return nil, nil
	}
	return hits, nil
}

// shownDailies are the daily entries the stack shows: recall leaves them
// out, and finds the rest, such as entries of the recent window the daily
// share had no room for.
func (b *builder) shownDailies() []recall.Lines {
	var out []recall.Lines
	for _, l := range b.dailies {
		for i, e := range l.meta {
			if l.keep[i] {
				out = append(out, recall.Lines{Path: l.rel, From: e.Start, To: e.End})
			}
		}
	}
	return out
}

// sortHits orders hits best score first, then by path and line, so that
// equal scores are taken in the same order on every build.
func sortHits(hits []recall.Hit) {
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		if hits[i].Path != hits[j].Path {
			return hits[i].Path < hits[j].Path
		}
		return hits[i].StartLine < hits[j].StartLine
	})
}

// decideHits redacts and renders each hit, best first, and decides
// whether it goes in: not when it is already in the stack, scores under
// floor or does not fit what is left of granted (used is taken already).
// It returns, for each hit, its manifest item, its block and the secrets
// it hid.
func (b *builder) decideHits(hits []recall.Hit, used, granted int, floor float64) ([]RecallItem, []block, [][]Redaction) {
	items := make([]RecallItem, len(hits))
	blocks := make([]block, len(hits))
	hidden := make([][]Redaction, len(hits))
	for i, h := range hits {
		h, hidden[i] = redactHit(h)
		hits[i] = h
		it := recallItem(h)
		blocks[i] = b.hitBlock(h)
		it.Tokens = blocks[i].tokens
		if why := b.alreadyIn(h, hits[:i], items[:i]); why != "" {
			it.Decision, it.Why = Dropped, why
		} else if h.Score < floor {
			it.Decision, it.Why = Dropped, fmt.Sprintf("below the relevance floor: score %.4f under %.4f", h.Score, floor)
		} else if used+it.Tokens > granted {
			it.Decision, it.Why = Dropped, fmt.Sprintf("does not fit: needs %d tokens, %d left for recall", it.Tokens, max(granted-used, 0))
		} else {
			it.Decision, it.Why = Included, fmt.Sprintf("rank %d by score, fits the recall budget", i+1)
			used += it.Tokens
		}
		items[i] = it
	}
	return items, blocks, hidden
}

// recallItem is h as the manifest lists it, before the decision.
func recallItem(h recall.Hit) RecallItem {
	it := RecallItem{Path: h.Path, StartLine: h.StartLine, EndLine: h.EndLine, Teammate: h.Teammate,
		Kind: h.Kind, Type: h.Type, Name: h.Name, Date: h.Date, Heading: h.Heading,
		Score: h.Score, BM25: h.BM25, Vector: h.Vector, Passes: h.Reason}
	if it.Passes == nil {
		it.Passes = []string{}
	}
	return it
}

// fitRecall returns the section's count as rendered, first dropping the
// lowest-scored included memories until it fits granted: BPE counts are
// not always additive across the joins.
func (b *builder) fitRecall(head block, items []RecallItem, blocks []block, granted int) int {
	n := countJoined(b.tok, b.renderRecall(head, items, blocks))
	for i := len(items) - 1; i >= 0 && n > granted; i-- {
		if items[i].Decision != Included {
			continue
		}
		items[i].Decision, items[i].Why = Dropped, "dropped so that the section as rendered fits the recall budget"
		n = countJoined(b.tok, b.renderRecall(head, items, blocks))
	}
	return n
}

// floorScore is the score a hit needs to be injected: the floor share
// (0 meaning DefaultRecallFloor, negative none) of the best score.
func floorScore(hits []recall.Hit, floor float64) float64 {
	if floor == 0 {
		floor = DefaultRecallFloor
	}
	if floor < 0 || len(hits) == 0 {
		return 0
	}
	best := hits[0].Score
	for _, h := range hits {
		best = max(best, h.Score)
	}
	return floor * best
}

// redactHit hides the secrets in what a hit shows: those recall already
// redacted (listed in h.Redacted) and any a Recaller left in. Each is
// located at the hit's first line.
func redactHit(h recall.Hit) (recall.Hit, []Redaction) {
	var rs []Redaction
	for _, rule := range h.Redacted {
		rs = append(rs, Redaction{Path: h.Path, Rule: rule})
	}
	for _, s := range []*string{&h.Name, &h.Heading, &h.Text} {
		var more []Redaction
		*s, more = redact(SectionRecall, h.Path, 0, *s)
		rs = append(rs, more...)
	}
	for i := range rs {
		rs[i].Section, rs[i].Line = SectionRecall, h.StartLine
	}
	return h, rs
}

// alreadyIn says why hit h is already in the stack, or "".
func (b *builder) alreadyIn(h recall.Hit, better []recall.Hit, decided []RecallItem) string {
	if name, ok := b.fixed[h.Path]; ok {
		return "already in the stack: the " + name + " section"
	}
	for _, l := range b.dailies {
		if l.rel != h.Path {
			continue
		}
		for i, e := range l.meta {
			if l.keep[i] && e.Start <= h.EndLine && h.StartLine <= e.End {
				return "already in the stack: the recent daily logs"
			}
		}
	}
	for i, o := range better {
		if decided[i].Decision == Included && o.Path == h.Path && o.StartLine <= h.EndLine && h.StartLine <= o.EndLine {
			return "repeats lines of a higher-scored memory"
		}
	}
	return ""
}

// hitBlock renders one recalled memory: a heading, its source and the
// chunk's text with its headings nested below.
func (b *builder) hitBlock(h recall.Hit) block {
	title := h.Title()
	if title == "" {
		title = quote.IfNeeded(strings.TrimSuffix(path.Base(h.Path), ".md"))
	}
	// The path is quoted as tmem list quotes it when a line break or a
	// terminal escape in it would break the line or reach a terminal.
	src := []string{fmt.Sprintf("%s:%d-%d", quote.IfNeeded(b.prefix+h.Path), h.StartLine, h.EndLine), h.Kind}
	if h.Type != "" {
		src = append(src, h.Type)
	}
	if h.Date != "" {
		src = append(src, h.Date)
	}
	t := "## " + oneLine(title) + "\n\n_Source: " + strings.Join(src, " · ") + "_\n\n"
	if body := strings.TrimSpace(h.Text); body != "" {
		t += demote(body, 2) + "\n\n"
	}
	return block{t, b.tok.Count(t)}
}

// oneLine folds s onto one line, for headings.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// renderRecall returns the blocks of the section: head, then the
// included memories in rank order.
func (b *builder) renderRecall(head block, items []RecallItem, blocks []block) []block {
	out := []block{head}
	for i, it := range items {
		if it.Decision == Included {
			out = append(out, blocks[i])
		}
	}
	if len(out) == 1 {
		out = append(out, b.noRecallBlock())
	}
	return out
}

// noRecallBlock stands in for the memories when none is included.
func (b *builder) noRecallBlock() block {
	if b.noRecall.text == "" {
		t := "_No recalled memories for this task._\n\n"
		b.noRecall = block{t, b.tok.Count(t)}
	}
	return b.noRecall
}
