// Package templates embeds the starting files of a workspace (SOUL.md,
// GOALS.md, WISDOM.md, CROSS-TEAM.md) and the texts the context builder and
// the summarizers inject (memory update instructions, output protocol,
// compaction prompts). A workspace overrides any of them by placing a file
// of the same name in .teammates/templates/.
package templates
