// Package compact rolls daily logs into weekly and monthly summaries and
// distils typed memories into WISDOM.md, through a resumable journal.
package compact
