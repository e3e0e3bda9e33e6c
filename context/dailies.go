package context

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/tmemhq/tmem/layout"
)

// dayLog is one daily log inside the recent window.
type dayLog struct {
	rel     string
	date    string
	today   bool
	header  block          // "## Friday 2026-11-20 (today) — path\n\n"
	entries []block        // rendered `##` entries, in file order
	meta    []layout.Entry // headings and texts redacted
	keep    []bool         // entries[i] goes into the section
	hidden  [][]Redaction  // the secrets redacted from entries[i]
}

const dailiesHeading = "Recent daily logs"

// loadDailies reads the daily logs of the recent window, newest first.
// A log that cannot be read or parsed is left out with a warning (see
// readDoc); for today's log the section says so.
func (b *builder) loadDailies() []dayLog {
	today := layout.Day(b.now)
	var out []dayLog
	seenToday := false
	for _, f := range b.files {
		if f.Kind != layout.KindDaily || f.NameErr != "" || !layout.InRecentWindow(f.Date, b.now, layout.RecentDays) {
			continue
		}
		seenToday = seenToday || f.Date.Equal(today)
		if l, ok := b.loadDaily(f, today); ok {
			out = append(out, l)
		}
	}
	if !seenToday {
		// The listing leaves out what is no regular file (a named pipe, a
		// folder, a link leading outside): asking for today's log by name
		// tells such a file from none.
		f := layout.File{Path: layout.DailyPath(b.mate.Name, today), Kind: layout.KindDaily, Date: today}
		if l, ok := b.loadDaily(f, today); ok {
			out = append(out, l)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].date > out[j].date })
	return out
}

// loadDaily reads one daily log; ok is false when it is missing or left
// out, and b.todayLeftOut says why for today's.
func (b *builder) loadDaily(f layout.File, today time.Time) (l dayLog, ok bool) {
	d, why, err := b.readDoc(f.Path)
	if d == nil {
		if err == nil && f.Date.Equal(today) {
			b.todayLeftOut = why
		}
		return dayLog{}, false
	}
	return b.dayLog(f, d, f.Date.Equal(today)), true
}

func (b *builder) dayLog(f layout.File, d *layout.Doc, today bool) dayLog {
	// meta gets the redacted entries: a copy, since d may be a cached
	// parse that other builds share.
	l := dayLog{rel: f.Path, date: f.Date.Format(layout.DateLayout), today: today, meta: slices.Clone(d.Entries)}
	h := "## " + f.Date.Weekday().String() + " " + l.date
	if today {
		h += " (today)"
	}
	h += " — " + b.prefix + f.Path + "\n\n"
	l.header = block{h, b.tok.Count(h)}
	for i, e := range d.Entries {
		var hs, ts []Redaction
		e.Heading, hs = redact(SectionDailies, f.Path, e.Start, e.Heading)
		e.Text, ts = redact(SectionDailies, f.Path, e.End-strings.Count(e.Text, "\n"), e.Text)
		l.meta[i], l.hidden = e, append(l.hidden, append(hs, ts...))
		var t string
		switch {
		case e.Heading == "":
			t = demote(e.Text, 1) + "\n\n"
		case e.Text == "":
			t = "### " + e.Heading + "\n\n"
		default:
			t = "### " + e.Heading + "\n\n" + demote(e.Text, 1) + "\n\n"
		}
		l.entries = append(l.entries, block{t, b.tok.Count(t)})
	}
	l.keep = make([]bool, len(l.entries))
	return l
}

// dailySection selects and renders the recent daily logs within the daily
// share of the budget. Today's log goes in whole, whatever its size. Then
// the entries of earlier days are taken newest first (days newest first,
// and within a day from its last entry back) until one does not fit: that
// entry and every older one are left out, even if a smaller older entry
// would fit, so that the injected logs are always everything since some
// point in time. Days are shown newest first, entries in file order.
func (b *builder) dailySection() section {
	logs := b.loadDailies()
	b.dailies = logs
	share := b.man.Budget.DailyShare
	head := b.dailiesHead(logs)
	taken, whyStop := takeDailies(logs, head.tokens, share)
	n, whyStop := b.fitDailies(head, logs, taken, share, whyStop)
	sources := b.reportDailies(logs, whyStop)
	b.man.Budget.DailiesUsed = n
	if n > share {
		b.man.Notes = append(b.man.Notes, fmt.Sprintf("today's log (%d tokens with its heading) is over the daily share of %d tokens; it is included whole", n, share))
	}
	s := section{
		Section: Section{Name: SectionDailies, Heading: dailiesHeading, Tokens: n, InBudget: true, Sources: sources},
		text:    joinBlocks(renderDailies(head, logs)),
	}
	if len(logs) == 0 {
		s.Note = "no daily logs in the last " + fmt.Sprint(layout.RecentDays) + " days"
	}
	return s
}

// dailiesHead is the section's heading, with a note when today's log is
// missing or was left out.
func (b *builder) dailiesHead(logs []dayLog) block {
	head := "# " + dailiesHeading + "\n\n"
	todayPath := b.show(layout.DailyPath(b.mate.Name, layout.Day(b.now)))
	switch {
	case b.todayLeftOut != "":
		head += "_Today's log " + todayPath + " was left out: " + b.todayLeftOut + " (see `tmem doctor`)._\n\n"
	case len(logs) == 0 || !logs[0].today:
		head += "_No log for today yet: it goes in " + todayPath + "._\n\n"
	}
	return block{head, b.tok.Count(head)}
}

// entryRef names entry of logs[log].
type entryRef struct{ log, entry int }

// takeDailies marks the entries that go in: all of today's, then earlier
// ones newest first while they fit the share, counting each day's header
// with its first entry. used is what the section's heading takes. It
// returns the earlier entries in the order they were taken, the last one
// taken being the first to drop, and why the first entry left out was.
func takeDailies(logs []dayLog, used, share int) (taken []entryRef, whyStop string) {
	stopped := false
	for li := range logs {
		l := &logs[li]
		if l.today {
			used += l.header.tokens
			for ei := range l.entries {
				l.keep[ei] = true
				used += l.entries[ei].tokens
			}
			continue
		}
		for ei := len(l.entries) - 1; ei >= 0 && !stopped; ei-- {
			cost := l.entries[ei].tokens
			if !l.anyKept() {
				cost += l.header.tokens
			}
			if used+cost > share {
				stopped = true
				whyStop = fmt.Sprintf("does not fit: needs %d tokens, %d of the daily share left", cost, max(share-used, 0))
				break
			}
			l.keep[ei] = true
			used += cost
			taken = append(taken, entryRef{li, ei})
		}
	}
	return taken, whyStop
}

// fitDailies returns the section's count as rendered, first dropping taken
// entries from the oldest end until it fits the share: BPE counts are not
// always additive across the joins. whyStop is updated when that drops
// the first entry left out.
func (b *builder) fitDailies(head block, logs []dayLog, taken []entryRef, share int, whyStop string) (int, string) {
	n := countJoined(b.tok, renderDailies(head, logs))
	for n > share && len(taken) > 0 {
		r := taken[len(taken)-1]
		taken = taken[:len(taken)-1]
		logs[r.log].keep[r.entry] = false
		if whyStop == "" {
			whyStop = "dropped so that the section as rendered fits the daily share"
		}
		n = countJoined(b.tok, renderDailies(head, logs))
	}
	return n, whyStop
}

// reportDailies lists every entry in the manifest, newest first as they
// were taken, with why it is in or out, records the redactions of the
// entries that are in, and returns the logs the section shows.
func (b *builder) reportDailies(logs []dayLog, whyStop string) (sources []string) {
	dropping := false
	for _, l := range logs {
		for ei := len(l.entries) - 1; ei >= 0; ei-- {
			e := l.meta[ei]
			de := DailyEntry{Path: l.rel, Date: l.date, Today: l.today, Heading: e.Heading,
				StartLine: e.Start, EndLine: e.End, Tokens: l.entries[ei].tokens}
			switch {
			case l.today:
				de.Decision, de.Why = Included, "today's log is always included whole"
			case l.keep[ei]:
				de.Decision, de.Why = Included, "fits the daily share"
			case !dropping:
				dropping = true
				de.Decision, de.Why = Dropped, whyStop
			default:
				de.Decision, de.Why = Dropped, "older than an entry that did not fit: recent logs are contiguous"
			}
			if de.Decision == Included && ei == firstKept(l.keep) {
				de.Tokens += l.header.tokens
			}
			if de.Decision == Included {
				b.man.Redactions = append(b.man.Redactions, l.hidden[ei]...)
			}
			b.man.Dailies = append(b.man.Dailies, de)
		}
		if l.today || l.anyKept() {
			sources = append(sources, l.rel)
		}
	}
	return sources
}

func (l *dayLog) anyKept() bool { return firstKept(l.keep) >= 0 }

func firstKept(keep []bool) int {
	for i, k := range keep {
		if k {
			return i
		}
	}
	return -1
}

// renderDailies returns the blocks of the section: head, then the kept
// entries under their day headings.
func renderDailies(head block, logs []dayLog) []block {
	out := []block{head}
	for _, l := range logs {
		if !l.today && !l.anyKept() {
			continue
		}
		out = append(out, l.header)
		for i, e := range l.entries {
			if l.keep[i] {
				out = append(out, e)
			}
		}
	}
	return out
}
