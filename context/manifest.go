package context

// Manifest describes a built prompt stack: every section with its token
// count and sources, every daily entry and recalled memory with the
// decision taken on it, and the budget. Field names are stable; the CLI
// prints it as JSON.
type Manifest struct {
	Teammate  string `json:"teammate"`
	Now       string `json:"now"`       // RFC 3339, in TimeZone
	TimeZone  string `json:"time_zone"` // IANA name, or the zone abbreviation when there is none
	Tokenizer string `json:"tokenizer"`
	Budget    Budget `json:"budget"`
	// Sections are in stack order. Their texts are consecutive parts of
	// Result.Text, and each Tokens is the count of exactly that part.
	Sections []Section    `json:"sections"`
	Dailies  []DailyEntry `json:"dailies"`
	Recall   RecallReport `json:"recall"`
	// Redactions are the secrets the stack shows as "[REDACTED:kind]",
	// in the order they were found.
	Redactions []Redaction `json:"redactions"`
	Notes      []string    `json:"notes"`
	// TotalTokens counts the whole document, fixed sections included.
	TotalTokens int `json:"total_tokens"`
}

// Budget is the memory budget: the recalled memories and the recent daily
// logs share it; every other section is outside it.
type Budget struct {
	Total      int `json:"total"`       // Options.Budget
	DailyShare int `json:"daily_share"` // what the daily logs may use (3/4 of Total)
	RecallMin  int `json:"recall_min"`  // what recall always gets: Total - DailyShare
	// RecallGranted is what recall got: Total minus what the daily logs
	// used, so the unused daily share flows to recall.
	RecallGranted int  `json:"recall_granted"`
	DailiesUsed   int  `json:"dailies_used"`
	RecallUsed    int  `json:"recall_used"`
	Used          int  `json:"used"` // DailiesUsed + RecallUsed
	Exceeded      bool `json:"exceeded"`
	// ExceededBy is Used - Total when Exceeded: only today's log, which is
	// always included whole, can push the stack over.
	ExceededBy    int `json:"exceeded_by"`
	OutsideBudget int `json:"outside_budget"` // tokens of the fixed sections
}

// Section is one part of the stack.
type Section struct {
	Name    string `json:"name"` // soul, goals, wisdom, recall, dailies, session, roster, instructions, protocol, now, task
	Heading string `json:"heading"`
	// Offset and Bytes locate the section in Result.Text.
	Offset   int      `json:"offset"`
	Bytes    int      `json:"bytes"`
	Tokens   int      `json:"tokens"`
	InBudget bool     `json:"in_budget"`
	Sources  []string `json:"sources"` // workspace-relative paths, or "template:NAME" / "template:NAME (override)"
	Note     string   `json:"note,omitempty"`
}

// Decisions on a daily entry or a recalled memory.
const (
	Included = "included"
	Dropped  = "dropped"
)

// DailyEntry is one `##` entry of a daily log inside the recent window.
type DailyEntry struct {
	Path      string `json:"path"`
	Date      string `json:"date"`
	Today     bool   `json:"today"`
	Heading   string `json:"heading"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	Tokens    int    `json:"tokens"` // of the entry as rendered, with its day heading when it brought one
	Decision  string `json:"decision"`
	Why       string `json:"why"`
}

// RecallReport says how recall was queried and what became of each hit.
type RecallReport struct {
	// Query is the text searched for: the task, trimmed, and cut after
	// its first recall.MaxQueryBytes (the stack's text holds it whole).
	Query      string `json:"query"`
	K          int    `json:"k"`
	HasVectors bool   `json:"has_vectors"`
	// Mode is "hybrid" (BM25 and vectors), "bm25" (no embedding model)
	// or "off" (no recall index).
	Mode  string `json:"mode"`
	Error string `json:"error,omitempty"`
	// Floor is the score below which hits were left out: the relevance
	// floor times the best hit's score (0 without hits or floor).
	Floor float64      `json:"floor"`
	Items []RecallItem `json:"items"`
}

// RecallItem is one recall hit and the decision taken on it.
type RecallItem struct {
	Path      string   `json:"path"`
	StartLine int      `json:"start_line"`
	EndLine   int      `json:"end_line"`
	Teammate  string   `json:"teammate"`
	Kind      string   `json:"kind"`
	Type      string   `json:"type,omitempty"`
	Name      string   `json:"name,omitempty"`
	Date      string   `json:"date,omitempty"`
	Heading   string   `json:"heading,omitempty"`
	Score     float64  `json:"score"`
	BM25      float64  `json:"bm25"`
	Vector    float64  `json:"vector"`
	Passes    []string `json:"passes"` // recall's reasons: bm25, vector, recency, boost
	Tokens    int      `json:"tokens"`
	Decision  string   `json:"decision"`
	Why       string   `json:"why"`
}
