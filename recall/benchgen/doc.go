// Package benchgen writes synthetic but realistic-looking workspaces for
// recall benchmarks: teammates with years of daily logs, typed memories,
// weekly and monthly summaries and WISDOM.md, all from a seeded random
// source so the same options always give the same files.
//
// The oldest share of weeks is "compacted": those weeks have a weekly
// summary and no dailies, as after tmem compact; the rest still have
// their dailies, as on a team whose compaction is behind.
package benchgen
