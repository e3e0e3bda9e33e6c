package benchgen

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tmemhq/tmem/layout"
)

// Options size the workspace.
type Options struct {
	Teammates int       // 0 means 5
	Years     int       // of history ending at End; 0 means 3
	End       time.Time // the last day with a daily; zero means 2026-11-20
	Seed      uint64
	// Compacted is the share of the oldest weeks rolled into summaries;
	// 0 means 0.3, negative means none.
	Compacted float64
	// TypedPerYear is how many typed memories a teammate writes a year;
	// 0 means 40.
	TypedPerYear int
	// EntriesPerDaily fixes the number of entries in a daily; 0 means
	// two to five. Large values pack many chunks into one teammate.
	EntriesPerDaily int
	// Force writes into a folder that already holds a workspace,
	// replacing its files of the same names. Without it Generate refuses.
	Force bool
}

// Stats counts what Generate wrote.
type Stats struct {
	Files   int `json:"files"`
	Dailies int `json:"dailies"`
	Typed   int `json:"typed"`
	Weekly  int `json:"weekly"`
	Monthly int `json:"monthly"`
	Entries int `json:"entries"` // `##` entries over all files
}

func (o Options) withDefaults() Options {
	if o.Teammates <= 0 {
		o.Teammates = 5
	}
	if o.Years <= 0 {
		o.Years = 3
	}
	if o.End.IsZero() {
		o.End = time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	}
	if o.Compacted == 0 {
		o.Compacted = 0.3
	}
	if o.Compacted < 0 {
		o.Compacted = 0
	}
	if o.TypedPerYear <= 0 {
		o.TypedPerYear = 40
	}
	return o
}

var (
	names    = []string{"atlas", "beacon", "quill", "harbor", "ember", "fjord", "gale", "heron", "iris", "juniper", "kestrel", "lumen", "marlin", "nimbus", "onyx", "pike", "quartz", "raven", "sable", "tern", "umber", "vale", "wren", "yarrow", "zephyr"}
	subjects = []string{"the ingest worker", "the search index", "the ETA job", "the webhook sender", "the carrier adapter", "the billing export", "the map view", "the shipment table", "the alerting rules", "the staging cluster", "the reporting replica", "the retry queue", "the port synonyms list", "the release train", "the on-call rotation", "the dead-letter table", "the customs milestone", "the rate limiter", "the auth proxy", "the nightly backfill"}
	verbs    = []string{"fixed", "profiled", "rewrote", "reviewed", "deployed", "rolled back", "benchmarked", "documented", "migrated", "debugged", "load-tested", "refactored", "paired on", "planned", "monitored"}
	details  = []string{"p95 latency dropped from 420 ms to 180 ms", "the flaky test passed fifty runs in a row", "Norwave sent duplicate events again after their outage", "the migration needed an expand step first", "Priya asked for a summary before Friday", "the dashboard now shows queue depth per carrier", "memory use stayed under 300 MB", "two customers reported stale positions", "the alert fired three times overnight", "we agreed to keep Postgres instead of adding a queue", "the config flag defaults to off", "a timezone bug shifted dates by one day", "the container numbers failed ISO 6346 validation", "the backfill took 3 h 10 min", "Tomasz approved the rollout plan"}
	tails    = []string{"Next step is a follow-up ticket.", "Left a note in the runbook.", "Will check the numbers again tomorrow.", "Nobody objected in review.", "Needs a second reviewer before merge.", "Shared the graph in the team channel.", "Opened HRB-%d to track it.", "Decision recorded in the design doc."}
	types    = []string{"user", "feedback", "project", "reference"}
	// Facts: the exact records people later ask for, full of identifiers
	// (error codes, tickets, versions, regions, numbers with units, paths).
	services = []string{"audit-log", "billing-api", "ingest-gateway", "search-index", "eta-service", "webhook-relay", "carrier-sync", "map-tiles", "rate-limiter", "auth-proxy", "export-worker", "customs-feed"}
	regions  = []string{"us-east-1", "us-west-2", "eu-west-1", "eu-central-1", "ap-south-1", "ap-northeast-1"}
	errParts = []string{"REPLICA", "QUEUE", "TOKEN", "SHARD", "LEASE", "CURSOR", "SCHEMA", "QUOTA"}
	errKinds = []string{"LAG", "TIMEOUT", "OVERFLOW", "EXPIRED", "CONFLICT", "MISSING", "STALE"}
	projects = []string{"DX", "HRB", "OPS", "ING", "BIL"}
	libs     = []string{"pgx", "zstd", "grpc-go", "otel-sdk", "bleve", "chi", "sarama", "protobuf"}
	topics   = []string{"load testing", "failover", "capacity planning", "schema migration", "alert tuning", "cost review", "retention policy", "incident review"}
	facts    = []string{
		"Error rate for %[1]s on %[2]s is %[3]s in %[4]s; threshold is %[5]s.",
		"%[6]s tracks %[2]s %[7]s: %[1]s showed up %[8]d times in %[4]s.",
		"Bumped %[9]s from %[10]s to %[11]s in %[2]s; see %[12]s.",
		"p99 of %[2]s in %[4]s went from %[13]d ms to %[14]d ms after %[6]s.",
		"Wrote an RFC for %[7]s in %[2]s: budget is %[3]s of requests in %[4]s, owner %[6]s.",
	}
)

type gen struct {
	r    *rand.Rand
	root string
	st   Stats
}

func (g *gen) pick(xs []string) string { return xs[g.r.IntN(len(xs))] }

func (g *gen) sentence() string {
	if g.r.IntN(3) == 0 {
		return g.fact()
	}
	s := fmt.Sprintf("%s %s; %s.", upperFirst(g.pick(verbs)), g.pick(subjects), g.pick(details))
	if g.r.IntN(2) == 0 {
		t := g.pick(tails)
		if strings.Contains(t, "%d") {
			t = fmt.Sprintf(t, 1000+g.r.IntN(4000))
		}
		s += " " + t
	}
	return s
}

// fact is a sentence of identifiers: seldom the same twice.
func (g *gen) fact() string {
	svc := g.pick(services)
	pct := func() string { return fmt.Sprintf("%d.%02d%%", g.r.IntN(3), g.r.IntN(100)) }
	major := 1 + g.r.IntN(3)
	return fmt.Sprintf(g.pick(facts),
		"ERR_"+g.pick(errParts)+"_"+g.pick(errKinds), svc, pct(), g.pick(regions), pct(),
		fmt.Sprintf("%s-%d", g.pick(projects), 1000+g.r.IntN(9000)), g.pick(topics), 2+g.r.IntN(400),
		g.pick(libs), fmt.Sprintf("v%d.%d", major, g.r.IntN(10)), fmt.Sprintf("v%d.%d", major, 10+g.r.IntN(10)),
		fmt.Sprintf("deploy/%s/%s.yaml", svc, g.pick(types)),
		100+g.r.IntN(900), 20+g.r.IntN(300))
}

func (g *gen) paragraph(n int) string {
	var out []string
	for i := 0; i < n; i++ {
		out = append(out, g.sentence())
	}
	return strings.Join(out, " ")
}

func (g *gen) write(rel, body string) error {
	p := filepath.Join(g.root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	g.st.Files++
	g.st.Entries += strings.Count(body, "\n## ")
	return os.WriteFile(p, []byte(body), 0o644)
}

// Generate writes a workspace into dir (a .teammates folder is created
// inside it) and says what it wrote. It refuses, with an error wrapping
// layout.ErrExists, when dir already holds a .teammates folder, unless
// opts.Force.
func Generate(dir string, opts Options) (Stats, error) {
	o := opts.withDefaults()
	g := &gen{r: rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15)), root: filepath.Join(dir, layout.DirName)}
	if _, err := os.Lstat(g.root); err == nil && !o.Force {
		return g.st, fmt.Errorf("generate a workspace in %s: %s: %w (generating would overwrite its files)", dir, g.root, layout.ErrExists)
	}
	start := o.End.AddDate(-o.Years, 0, 1)
	weeks := int(o.End.Sub(start).Hours()/24/7) + 1
	compactedWeeks := int(float64(weeks) * o.Compacted)
	compactedUntil := layout.WeekOf(start).Start().AddDate(0, 0, 7*compactedWeeks)
	if err := g.write("CROSS-TEAM.md", "# Cross-team notes\n\n## Release freeze\n\n"+g.paragraph(3)+"\n\n## Shared staging\n\n"+g.paragraph(2)+"\n"); err != nil {
		return g.st, err
	}
	for t := 0; t < o.Teammates; t++ {
		name := fmt.Sprintf("mate%02d", t)
		if t < len(names) {
			name = names[t]
		}
		if err := g.teammate(name, start, o, compactedUntil); err != nil {
			return g.st, fmt.Errorf("generate %s: %w", name, err)
		}
	}
	return g.st, nil
}

func (g *gen) teammate(name string, start time.Time, o Options, compactedUntil time.Time) error {
	if err := g.write(name+"/SOUL.md", fmt.Sprintf("# %s — Engineer\n\n%s\n", upperFirst(name), g.paragraph(2))); err != nil {
		return err
	}
	var wisdom strings.Builder
	wisdom.WriteString("# Wisdom\n")
	for i := 0; i < 8; i++ {
		fmt.Fprintf(&wisdom, "\n## Rule %d: %s\n\n%s\n", i+1, g.pick(subjects), g.paragraph(2))
	}
	if err := g.write(name+"/WISDOM.md", wisdom.String()); err != nil {
		return err
	}
	for d := start; !d.After(o.End); d = d.AddDate(0, 0, 1) {
		if d.Before(compactedUntil) {
			continue
		}
		if wd := d.Weekday(); (wd == time.Saturday || wd == time.Sunday) && g.r.IntN(5) > 0 {
			continue
		}
		if g.r.IntN(8) == 0 {
			continue // a day off
		}
		var b strings.Builder
		b.WriteString("# " + d.Format(layout.DateLayout) + "\n")
		entries := 2 + g.r.IntN(4)
		if o.EntriesPerDaily > 0 {
			entries = o.EntriesPerDaily
		}
		for e := 0; e < entries; e++ {
			fmt.Fprintf(&b, "\n## %s %s\n\n", upperFirst(g.pick(verbs)), g.pick(subjects))
			b.WriteString(g.paragraph(2 + g.r.IntN(4)))
			if g.r.IntN(3) == 0 {
				fmt.Fprintf(&b, "\n\n- %s\n- %s", g.sentence(), g.sentence())
			}
			b.WriteString("\n")
		}
		if err := g.write(layout.DailyPath(name, d), b.String()); err != nil {
			return err
		}
		g.st.Dailies++
	}
	for wk := layout.WeekOf(start); wk.Start().Before(compactedUntil); wk = wk.Next() {
		body := fmt.Sprintf("---\ntype: weekly\nweek: %s\nteammate: %s\nperiod: %s\n---\n", wk, name, layout.Period(wk.Start(), wk.End()))
		for i := 0; i < 3+g.r.IntN(4); i++ {
			body += "- " + g.sentence() + "\n"
		}
		if err := g.write(layout.WeeklyPath(name, wk), body); err != nil {
			return err
		}
		g.st.Weekly++
	}
	for m := time.Date(start.Year(), start.Month(), 1, 0, 0, 0, 0, time.UTC); m.AddDate(0, 1, 0).Before(compactedUntil); m = m.AddDate(0, 1, 0) {
		body := fmt.Sprintf("---\ntype: monthly\nmonth: %s\nteammate: %s\n---\n%s\n\n%s\n", m.Format("2006-01"), name, g.paragraph(4), g.paragraph(3))
		if err := g.write(layout.MonthlyPath(name, m), body); err != nil {
			return err
		}
		g.st.Monthly++
	}
	return g.typed(name, o.TypedPerYear*o.Years)
}

// typed writes n typed memories for the teammate, named as tmem remember
// names them.
func (g *gen) typed(name string, n int) error {
	for i := 0; i < n; i++ {
		typ := g.pick(types)
		subj := strings.TrimPrefix(g.pick(subjects), "the ")
		if g.r.IntN(2) == 0 {
			subj = strings.ReplaceAll(g.pick(services), "-", " ") + " " + g.pick(topics)
		}
		slug, err := layout.Slug(fmt.Sprintf("%s %d", subj, i))
		if err != nil {
			return err
		}
		body := fmt.Sprintf("---\nname: %s notes %d\ndescription: %q\ntype: %s\n---\n%s\n\n**Why:** %s\n\n**How to apply:** %s\n",
			subj, i, g.sentence(), typ, g.paragraph(2), g.sentence(), g.sentence())
		if err := g.write(layout.TypedPath(name, typ, slug), body); err != nil {
			return err
		}
		g.st.Typed++
	}
	return nil
}

func upperFirst(s string) string { return strings.ToUpper(s[:1]) + s[1:] }
