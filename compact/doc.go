// Package compact rolls daily logs into weekly and monthly summaries and
// distils typed memories into WISDOM.md, through a resumable journal.
//
// Run is the entry point. It takes the workspace-wide "compact" lock (a
// second run fails at once with ErrLocked), finishes the journal of an
// interrupted run if there is one, then plans and applies two pipelines
// for each teammate:
//
//   - Episodic. The daily logs of each completed ISO week (never the
//     current one) become memory/weekly/YYYY-Wnn.md. Lines marked as
//     facts and lessons are also filed as typed memories
//     (memory/<type>_<topic>.md), added to a similar memory when one
//     exists. Weeks older than Options.KeepWeeks (52) are folded into
//     memory/monthly/YYYY-MM.md, each week in the month of its Thursday,
//     and their weeklies deleted. A week or month that gains a late daily
//     is merged again, never duplicated: every summary lists the files it
//     absorbed, with a hash of their content, in its `sources:`
//     frontmatter. Dailies still within layout.RecentDays stay until a
//     later run, because the context builder injects them directly.
//   - Semantic. Typed memories (feedback and project) that say the same
//     thing, by Similarity, become one WISDOM.md entry ending in a
//     "Sources:" line, or reinforce the entry they match. Absorbed memories
//     are deleted; one still evolving (changed within Options.EvolvingDays,
//     or `status: active`) is cited as "name.md (active)", kept, and
//     absorbed by the first run after it settles. When WISDOM.md is over
//     Options.WisdomBudget tokens, merges of its least-reinforced entries
//     are proposed in the Plan, never made silently.
//
// Summaries come from a Summarizer: Extractive (offline, deterministic, the
// default), Command (an external program such as `claude -p` reading the
// prompt on stdin) or OpenAI (any chat-completions endpoint). Prompts are
// the templates compact-weekly.md, compact-monthly.md and compact-wisdom.md,
// overridable in the workspace's templates folder. Output of the LLM
// backends is checked by Validate; a unit whose output is invalid is
// dropped and its sources kept. Config reads the `compact:` section of
// .teammates/tmem.yaml.
//
// Safety. The plan, with the full content of every file to write and the
// content hash every touched file must still have, is written to
// .teammates/.tmp/compact/journal.json before anything changes; each
// finished unit is appended to journal.done. Applying a unit is a series
// of compare-and-swaps under the teammate's lock (the lock AppendDaily and
// WriteMemory take): writes land and are read back first, then sources
// are deleted only if their hash is unchanged. So a process killed at any
// point is finished by the next run with the same result, and an entry
// appended during compaction is either in a summary or still in its daily.
//
// Compaction writes only memory files; recall re-syncs its index from
// them (size, mtime, hash) on its next query.
package compact
