package serve

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmemhq/tmem/recall"
)

// Server returns an MCP server offering the service's tools. One server
// may serve many sessions (streamable HTTP) or one (stdio).
func (s *Service) Server() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "tmem", Title: "tmem memory", Version: s.ver}, &mcp.ServerOptions{
		Instructions: s.instructions(),
	})
	addTool(srv, "memory_context", "Build the prompt stack for a task: SOUL, goals, wisdom, memories recalled with the task, recent daily logs, session state, roster, memory instructions, date and the task. Call it before each task and put the text in front of the prompt. The stack is the text content; the structured content summarizes its manifest (tokens per section, budget, recall mode, notes).",
		s.Context, func(o ContextOutput) string { return o.Text })
	addTool(srv, "memory_search", "Search a teammate's memory (typed memories, summaries, wisdom, older daily logs, the archive, CROSS-TEAM.md) by keywords and meaning. Each hit has a ref path:start-end to read more with memory_get.",
		s.Search, renderSearch)
	addToolTexts(srv, "memory_get", "Read a memory file, or a range of its lines, by its path relative to the workspace or by a search hit's ref. The text is the first text content; a call returns at most 128 KiB of it, and says where to read on when it stops short.",
		s.Get, renderGet)
	addTool(srv, "memory_log", "Append an entry to today's daily log: what was done, decided or learned. Mark lasting points with Decision:, Lesson: or Fact:.",
		s.Log, func(o WriteOutput) string { return "appended to " + o.Path })
	addTool(srv, "memory_remember", "Write a typed memory (user, feedback, project or reference) to memory/<type>_<topic>.md: create a new one, append to it, or overwrite it.",
		s.Remember, func(o WriteOutput) string { return fmt.Sprintf("wrote %s (%s)", o.Path, o.Mode) })
	addTool(srv, "memory_session", "Read the teammate's session file (scratch notes the previous task left for this one), or replace it with text: keep open threads and next steps there as you work, and rewrite it before you finish. It is never committed; what should last goes in memory_log or memory_remember.",
		s.Session, renderSession)
	addTool(srv, "memory_list", "List memory files with their kind, type, date and name.",
		s.List, renderList)
	addTool(srv, "memory_compact_plan", "Show what a compaction would do now (weekly and monthly summaries, WISDOM.md entries, files archived), without changing anything; compaction itself runs as tmem compact.",
		s.CompactPlan, renderPlan)
	return srv
}

// addTool registers a typed tool whose text content is render(output);
// an error from fn is a tool error, and the server keeps serving.
func addTool[In, Out any](srv *mcp.Server, name, desc string, fn func(context.Context, In) (Out, error), render func(Out) string) {
	addToolTexts(srv, name, desc, fn, func(o Out) []string { return []string{render(o)} })
}

// addToolTexts is addTool for a tool whose result has several text
// contents.
func addToolTexts[In, Out any](srv *mcp.Server, name, desc string, fn func(context.Context, In) (Out, error), render func(Out) []string) {
	mcp.AddTool(srv, &mcp.Tool{Name: name, Description: desc, InputSchema: inputSchema[In]()},
		func(ctx context.Context, _ *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
			out, err := fn(ctx, in)
			if err != nil {
				var zero Out
				return nil, zero, fmt.Errorf("%s: %w", name, err)
			}
			var content []mcp.Content
			for _, t := range render(out) {
				content = append(content, &mcp.TextContent{Text: t})
			}
			return &mcp.CallToolResult{Content: content}, out, nil
		})
}

// maxIntArg bounds every integer argument (budgets, counts, line
// numbers): more means nothing here, and a number past Go's int would
// fail decoding with an error that names no argument.
const maxIntArg = math.MaxInt32

// inputSchema is In's schema with every integer argument bounded by
// maxIntArg, so that the schema check names the argument that is too large.
func inputSchema[In any]() *jsonschema.Schema {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("input schema of %T: %v", *new(In), err)) // the input types are fixed: a bug
	}
	for _, p := range s.Properties {
		if p.Type == "integer" {
			p.Maximum = jsonschema.Ptr(float64(maxIntArg))
		}
	}
	return s
}

func (s *Service) instructions() string {
	var b strings.Builder
	b.WriteString("tmem memory for this workspace. Call memory_context before each task; search with memory_search and read with memory_get; record work with memory_log and lasting lessons with memory_remember.")
	if s.scope.bound() {
		fmt.Fprintf(&b, " This session is %s's", s.scope.teammate)
		if s.scope.lead {
			b.WriteString(" (a lead: it may read every teammate)")
		}
		b.WriteString("; it writes only that teammate's memory.")
	}
	return b.String()
}

func renderSession(o SessionOutput) string {
	switch {
	case o.Written:
		return "wrote " + o.Path
	case o.Text == "":
		return o.Path + " is empty: no task has left notes yet"
	}
	return o.Text
}

func renderSearch(o SearchOutput) string {
	var b strings.Builder
	if len(o.Hits) == 0 {
		b.WriteString("no hits\n")
	}
	hits := make([]recall.Hit, len(o.Hits))
	for i, h := range o.Hits {
		hits[i] = h.Hit
	}
	recall.WriteHits(&b, hits)
	for _, n := range o.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	return b.String()
}

// renderGet is the text read and, when it stops short of the lines
// asked for, a second text saying why and where to read on.
func renderGet(o GetOutput) []string {
	var why string
	switch o.Cut {
	case "size":
		why = fmt.Sprintf("lines %d-%d of %s: a call returns at most %d KiB", o.FromLine, o.ToLine, o.Path, maxGetBytes>>10)
	case "long-line":
		why = fmt.Sprintf("line %d of %s is longer than %d KiB: only its start is shown", o.ToLine, o.Path, maxGetBytes>>10)
	default:
		return []string{o.Text}
	}
	if o.NextFromLine == 0 {
		return []string{o.Text, "[memory_get: " + why + "; the file ends there]"}
	}
	return []string{o.Text, fmt.Sprintf("[memory_get: %s; read on with from_line %d]", why, o.NextFromLine)}
}

func renderList(o ListOutput) string {
	if len(o.Files) == 0 {
		return "no files"
	}
	var b strings.Builder
	for _, f := range o.Files {
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\n", f.Path, f.Kind, dash(f.Type), dash(f.Date), dash(f.Name))
	}
	return b.String()
}

func renderPlan(o CompactPlanOutput) string {
	var b strings.Builder
	if len(o.Units) == 0 {
		b.WriteString("nothing to compact\n")
	}
	for _, u := range o.Units {
		fmt.Fprintf(&b, "%s: write %s", u.ID, strings.Join(u.Writes, ", "))
		if len(u.Deletes) > 0 {
			fmt.Fprintf(&b, "; take out %s", strings.Join(u.Deletes, ", "))
		}
		b.WriteString("\n")
	}
	for _, f := range o.Failed {
		fmt.Fprintf(&b, "failed: %s: %s\n", f.Unit, f.Error)
	}
	for _, n := range o.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	return b.String()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
