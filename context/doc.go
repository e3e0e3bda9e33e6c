// Package context builds the token-budgeted prompt stack that is injected
// before every task. Import it under the alias memctx where the standard
// library's context is also needed.
//
// Data enters through a layout.Workspace (the teammate's files, the
// templates) and a Recaller (the recall index, queried with the task
// text); it leaves as one Markdown document and a Manifest, from one call:
// Build. Build writes nothing but the teammate's empty session file, when
// that is missing. A long-lived caller passes a Cache, which keeps the
// parsed files between builds under their stat data.
//
// # The stack
//
// In this order, each section under its own level-1 heading:
//
//  1. SOUL.md, 2. GOALS.md, 3. WISDOM.md: always, whole, outside the budget.
//  4. Relevant memories from recall (in the memory budget).
//  5. Recent daily logs (in the memory budget).
//  6. Session state: the path of .tmp/sessions/NAME.md and how to use it.
//  7. Roster: every teammate and its role.
//  8. Memory update instructions, 9. output protocol: templates, which the
//     workspace's templates folder may override.
//  10. Current date, time and time zone.
//  11. The task, verbatim.
//
// Sections other than 4 and 5 are outside the budget; the manifest reports
// their sizes. Headings inside injected files are pushed down so that they
// nest under the section's heading.
//
// # The memory budget
//
// The budget (DefaultBudget, 32,000 tokens) is counted with the chosen
// Tokenizer on the two memory sections exactly as they appear in the
// document, headings and separators included. Each piece (a heading, a
// daily entry, a recalled memory, a section) is counted once: a BPE
// encoding splits text where a line ends and the next piece starts with
// "#", "_" or a word, so there a joined text counts what its pieces add up
// to, and any other join is counted as joined.
//
// Daily logs may use DailyShare of it (3/4: 24,000 tokens). The logs of
// today and the six days before it are eligible (layout.InRecentWindow,
// the same window recall leaves out, so every daily is reachable one way
// or the other). Today's log is always included whole, whatever its size.
// Earlier entries (an entry is a `##` section) are then taken newest
// first, whole, until one does not fit: that entry and all older ones are
// left out, even when a smaller older one would fit. The injected logs are
// thus always "everything since" some entry, never a pattern with holes.
//
// Recall gets the rest of the budget: the quarter the daily logs may not
// use, plus whatever they left unused (less only when today's log alone is
// over the daily share). Hits are taken in score
// order; a hit that fits is included whole, one that does not is dropped
// whole (never cut), and lower-scored hits are still tried. Hits that are
// already in the stack (the fixed files, an injected daily entry) or that
// repeat the lines of a better hit are dropped. Weekly and monthly
// summaries reach the stack only through recall.
//
// Only today's log can push the stack over budget; the manifest then says
// so and by how much.
//
// # Secrets
//
// Secrets in what the stack shows from files (SOUL.md, GOALS.md,
// WISDOM.md, daily entries, recalled memories, roles in the roster,
// template overrides) appear as "[REDACTED:kind]", counted as shown; the
// manifest lists each one in Redactions and adds a note. The task is the
// caller's own text and goes in verbatim.
package context
