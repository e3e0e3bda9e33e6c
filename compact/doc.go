// Package compact rolls daily logs into weekly and monthly summaries and
// distils typed memories into WISDOM.md, through a resumable journal,
// without losing a word: what it takes out of memory/ goes to the archive.
//
// Run is the entry point. It takes the workspace-wide "compact" lock (a
// second run fails at once with ErrLocked; dry runs share the lock, and a
// run waits for those under way), finishes the journal of an
// interrupted run if there is one, then plans and applies two pipelines
// for each teammate:
//
//   - Episodic. The daily logs of each completed ISO week (never the
//     current one) become memory/weekly/YYYY-Wnn.md. Marked paragraphs
//     (decisions, lessons, facts) are kept word for word; each distinct
//     fact or lesson is also filed as a typed memory. Weeks older than
//     Options.KeepWeeks (52) are folded into memory/monthly/YYYY-MM.md,
//     each week in the month of its Thursday. A week or month that gains a
//     late daily is merged again, never duplicated: every summary lists
//     the files it absorbed, with a hash of their content and where they
//     now are, in its `sources:` frontmatter. Dailies still within
//     layout.RecentDays stay until a later run, because the context
//     builder injects them directly. A compacted daily is left as its
//     stub (layout.DailyStub) until it is Options.KeepStubDays old, so
//     that git merges another machine's late entries to it with the
//     merge driver; entries appended to a stub are added to the day's
//     summary by the next run.
//   - Semantic. Typed memories (feedback and project) that say the same
//     thing, by Similarity, become one WISDOM.md entry (rule, why, how to
//     apply) citing its sources by content hash, or reinforce the entry
//     they match. A memory still evolving (changed within
//     Options.EvolvingDays, or `status: active`) is cited as active and
//     absorbed by the first run after it settles; one that changed since
//     it was cited is distilled again first. Text a person edited is never
//     rewritten. Over Options.WisdomBudget, merges are suggested.
//
// The archive (see layout.ArchiveSection): before a daily, a weekly or an
// absorbed typed memory is deleted, its exact bytes are appended to
// memory/archive/YYYY-MM.md (or copied whole to memory/archive/typed/),
// read back and checked to restore it; Options.NoArchive restores plain
// deletion.
//
// Summaries come from a Summarizer: Extractive (offline, deterministic, the
// default: one bullet per entry, never a cut sentence), Command (an
// external program such as `claude -p` reading the prompt on stdin) or
// OpenAI (any chat-completions endpoint). Model output is data: it is
// checked by Validate and capped, and a unit with a sentence its sources
// do not support is held as a Proposal instead of written (ApplyProposal,
// DiscardProposal). Config reads the `compact:` section of
// .teammates/tmem.yaml; the program or endpoint it names (its Reach) is
// used only when a Trust, such as the user's TrustStore, allows it as it
// is, since the file travels with the repository.
//
// Safety. The plan, with the full content of every file to write and the
// content hash every touched file must still have, is written to
// .teammates/.tmp/compact/journal.json before anything changes; each
// finished unit is appended to journal.done. Applying a unit is a series
// of compare-and-swaps under the teammate's lock (the lock AppendDaily and
// WriteMemory take): writes land and are read back first, then sources
// are deleted only if their hash is unchanged and their archive copy
// restores them. So a process killed at any point is finished by the next
// run with the same result, an entry appended during compaction is either
// in a summary or still in its daily, and DropJournal is always safe.
//
// Compaction writes only memory files; recall re-syncs its index from
// them (size, mtime, hash) on its next query.
package compact
