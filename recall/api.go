package recall

import (
	"context"
	"fmt"
	"time"
)

// Embedder turns texts into L2-normalised vectors. Identity names the model
// and pipeline version (not the backend), so that the index rebuilds its
// vectors when, and only when, the vectors would change.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	Identity() string
}

// A Successor is an Embedder that took over from another: vectors stored
// under identity prev are its own for every text but those differs
// reports (a fix to the text preparation that touches a few characters,
// say). A sync that finds them keeps them and embeds only the texts that
// differ, instead of every chunk again.
type Successor interface {
	Succeeds(prev string) (differs func(text string) bool, ok bool)
}

// Query is one recall search.
type Query struct {
	Text      string
	Teammates []string // searched together with the shared scope (CROSS-TEAM.md); empty means all
	K         int      // hits wanted; 0 means 10
	NoSync    bool     // skip reconciling the index with the files first
	// RecencyDepth is how many of the most recent weekly summaries are
	// always included; negative means none, 0 means the default (2).
	RecencyDepth int
	// Mode is ModeHybrid (the default when empty), ModeBM25 or
	// ModeVector; the last two exist for evaluation.
	Mode string
	// Now, when set, is the searcher's clock in its time zone: it decides
	// which daily log is today's (which the context builder shows whole
	// and the index leaves out) and what relative dates in Text mean. Zero
	// means Options.Now. The context builder passes its own, so that a
	// daily its day misses in another zone is indexed.
	Now time.Time
	// Shown are lines the searcher already has (the context builder: the
	// daily entries its stack shows); no hit overlaps them.
	Shown []Lines
	// Filter, when set, keeps only hits of some kinds and days.
	Filter *Filter
	// NotIndexed, when set, is called once a search succeeds with why
	// each memory file of the searched indexes that was read but left out
	// of them (it does not parse, or is over a limit) was left out, as
	// file:line: message: no hit comes from it, and the caller can say so.
	// A file that could not be read at all (a link leading outside, not a
	// regular file) is only warned of by the sync (Options.Warn) and
	// counted in SyncStats.Errors.
	NotIndexed func(why []string)
	// LockWait bounds the wait for an index another call or process
	// holds; 0 means Options.LockTimeout. The context builder, which can
	// do without recall, waits less than a search that cannot.
	LockWait time.Duration
}

// Lines are the lines From..To (1-based, inclusive) of the file at Path,
// relative to the workspace root.
type Lines struct {
	Path     string
	From, To int
}

// shown reports whether c overlaps lines in shown.
func shown(c Chunk, ls []Lines) bool {
	for _, l := range ls {
		if l.Path == c.Path && l.From <= c.EndLine && c.StartLine <= l.To {
			return true
		}
	}
	return false
}

// Hit is one ranked result: a passage of one entry of a file (a chunk, or
// neighbouring chunks merged), as whole lines with a little context;
// StartLine..EndLine are the lines Text shows. A file can give several.
type Hit struct {
	Teammate string `json:"teammate"`
	Path     string `json:"path"` // relative to the workspace root
	Kind     string `json:"kind"` // typed|weekly|monthly|daily|wisdom|crossteam|archive
	// Source is, for a hit in the archive, the archived file it comes
	// from ("2026-03-09.md"), relative to the memory folder.
	Source    string   `json:"source,omitempty"`
	Type      string   `json:"type"` // typed memories: user|feedback|project|reference
	Name      string   `json:"name,omitempty"`
	Date      string   `json:"date,omitempty"` // YYYY-MM-DD
	StartLine int      `json:"start_line"`
	EndLine   int      `json:"end_line"`
	Heading   string   `json:"heading"`
	Score     float64  `json:"score"`
	BM25      float64  `json:"bm25"`
	Vector    float64  `json:"vector"`
	Reason    []string `json:"reason"` // which passes put it there: bm25, vector, recency, boost
	Text      string   `json:"text"`
	// Redacted lists the rules of the secrets that Text, Name and Heading
	// show as "[REDACTED:kind]" (see tmem doctor for where they are).
	Redacted []string `json:"redacted,omitempty"`
	// NoVector says the chunk has no vector yet (the index uses vectors,
	// but this chunk waits in the backlog): it was ranked by BM25 alone.
	NoVector bool `json:"no_vector,omitempty"`
}

// Clock is injected so that "older than 7 days" is testable.
type Clock func() time.Time

// NotIndexedNotes turns the reasons Query.NotIndexed is given into notes
// for a caller to show: one a file, at most maxNotIndexedNotes, then how
// many more there are (tmem doctor lists them all).
func NotIndexedNotes(why []string) []string {
	var out []string
	for i, w := range why {
		if i == maxNotIndexedNotes {
			out = append(out, fmt.Sprintf("%d more files not indexed: tmem doctor lists them", len(why)-i))
			break
		}
		out = append(out, "not indexed, so never recalled: "+w)
	}
	return out
}

const maxNotIndexedNotes = 10
