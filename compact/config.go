package compact

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v3"

	"github.com/tmemhq/tmem/layout"
)

// ConfigFile is the workspace configuration file, relative to the
// .teammates folder. Compaction reads its `compact:` section:
//
//	compact:
//	  summarizer: command          # extractive (default) | command | openai
//	  command: [claude, -p]        # the program and its arguments ("claude -p" works too); prompt on stdin
//	  timeout: 2m                  # per summary, command and openai
//	  openai:
//	    base_url: http://127.0.0.1:11434/v1
//	    model: llama3.1
//	    api_key_env: OPENAI_API_KEY  # the variable holding the key; may be unset
//	  wisdom_budget: 2000          # tokens (chars/4)
//	  weekly_budget: 1500          # tokens per weekly summary
//	  monthly_budget: 4000         # tokens per monthly summary
//	  keep_weeks: 52
//	  keep_recent_days: 7
//	  keep_stub_days: 28           # how long a compacted daily's stub stays (-1: no stubs)
//	  archive: true                # false: delete what compaction removes (the spec's plain deletion)
const ConfigFile = "tmem.yaml"

// Config is the `compact:` section of ConfigFile.
type Config struct {
	Summarizer     string       `yaml:"summarizer"`
	Command        Argv         `yaml:"command"`
	Timeout        string       `yaml:"timeout"`
	OpenAI         OpenAIConfig `yaml:"openai"`
	WisdomBudget   int          `yaml:"wisdom_budget"`
	WeeklyBudget   int          `yaml:"weekly_budget"`
	MonthlyBudget  int          `yaml:"monthly_budget"`
	KeepWeeks      int          `yaml:"keep_weeks"`
	KeepRecentDays int          `yaml:"keep_recent_days"`
	KeepStubDays   int          `yaml:"keep_stub_days"`
	// Archive keeps what compaction removes in memory/archive/; unset
	// means true.
	Archive *bool `yaml:"archive"`
	// lines are the lines of the settings, by key.
	lines map[string]int
	// unknown are the keys of the file that tmem does not know.
	unknown []layout.Finding
}

// UnknownKeys are the keys of ConfigFile that no setting has, usually a
// typo (kep_weeks), as doctor's warnings with their lines: tmem ignores
// them, so a command that reads the file should say so.
func (c Config) UnknownKeys() []layout.Finding { return c.unknown }

// Argv is a command line: a YAML list, or a string split on spaces.
type Argv []string

// UnmarshalYAML implements yaml.Unmarshaler.
func (a *Argv) UnmarshalYAML(n *yaml.Node) error {
	var s string
	if n.Kind == yaml.ScalarNode && n.Decode(&s) == nil {
		*a = strings.Fields(s)
		return nil
	}
	var list []string
	if err := n.Decode(&list); err != nil {
		return fmt.Errorf("line %d: compact.command: want a list or a string", n.Line)
	}
	*a = list
	return nil
}

// OpenAIConfig configures the openai summarizer.
type OpenAIConfig struct {
	BaseURL   string `yaml:"base_url"`
	Model     string `yaml:"model"`
	APIKeyEnv string `yaml:"api_key_env"`
}

// configFile is the shape of ConfigFile: tmem reads only its `compact:`
// section.
type configFile struct {
	Compact Config `yaml:"compact"`
}

// LoadConfig reads the workspace's ConfigFile; a missing file is the zero
// Config. Numeric settings out of their range are refused with their
// line; keys no setting has are kept for UnknownKeys.
func LoadConfig(ws *layout.Workspace) (Config, error) {
	var file configFile
	b, err := ws.ReadFile(ConfigFile, layout.MaxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return Config{}, nil
	}
	if err != nil {
		return Config{}, fmt.Errorf("read %s: %w", ConfigFile, err)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		return Config{}, layout.YAMLError(ConfigFile, b, err)
	}
	if err := root.Decode(&file); err != nil && !errors.Is(err, io.EOF) {
		return Config{}, layout.YAMLError(ConfigFile, b, err)
	}
	if err := checkRanges(&root); err != nil {
		return Config{}, err
	}
	file.Compact.lines = keyLines(mapValue(&root, "compact"))
	file.Compact.unknown = layout.UnknownKeys(ConfigFile, b, &configFile{})
	return file.Compact, nil
}

// keyLines maps each key of a mapping to its line.
func keyLines(n *yaml.Node) map[string]int {
	lines := map[string]int{}
	if n == nil || n.Kind != yaml.MappingNode {
		return lines
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		lines[n.Content[i].Value] = n.Content[i].Line
	}
	return lines
}

// CheckConfig reports, as doctor findings with their lines, the compact
// settings of the workspace's ConfigFile that LoadConfig would refuse
// for being out of range. A file that is missing, unreadable or does not
// parse gives none: layout's CheckConfig reports those.
func CheckConfig(ws *layout.Workspace) []layout.Finding {
	b, err := ws.ReadFile(ConfigFile, layout.MaxFileSize)
	if err != nil {
		return nil
	}
	var root yaml.Node
	if yaml.Unmarshal(b, &root) != nil {
		return nil
	}
	var out []layout.Finding
	for _, e := range rangeErrors(&root) {
		out = append(out, layout.Finding{Path: e.Path, Line: e.Line, Severity: layout.SevError, Message: e.Err.Error()})
	}
	return out
}

// A setting's allowed values: whole numbers from min to max, and none
// (-1) where that has a meaning.
type numRange struct {
	min, max int
	none     bool
	unit     string
}

// ranges are the allowed values of the numeric compact settings. Dates
// are counted in calendar days, so these bound nothing but nonsense.
var ranges = map[string]numRange{
	"wisdom_budget":    {min: 100, max: 1_000_000, unit: "tokens"},
	"weekly_budget":    {min: 100, max: 1_000_000, unit: "tokens"},
	"monthly_budget":   {min: 100, max: 1_000_000, unit: "tokens"},
	"keep_weeks":       {min: 1, max: 5_200, unit: "weeks"},
	"keep_recent_days": {min: 1, max: 36_500, none: true, unit: "days"},
	"keep_stub_days":   {min: 1, max: 36_500, none: true, unit: "days"},
}

// maxTimeout bounds compact.timeout: no summary should take a day.
const maxTimeout = 24 * time.Hour

// checkRanges refuses numeric settings outside their range and a timeout
// that is not a positive duration, each with its line.
func checkRanges(root *yaml.Node) error {
	var errs []error
	for _, e := range rangeErrors(root) {
		errs = append(errs, e)
	}
	return errors.Join(errs...)
}

// rangeErrors lists the settings checkRanges refuses.
func rangeErrors(root *yaml.Node) []*layout.ParseError {
	sec := mapValue(root, "compact")
	if sec == nil || sec.Kind != yaml.MappingNode {
		return nil
	}
	var errs []*layout.ParseError
	bad := func(n *yaml.Node, format string, args ...interface{}) {
		errs = append(errs, &layout.ParseError{Path: ConfigFile, Line: n.Line, Err: fmt.Errorf(format, args...)})
	}
	for i := 0; i+1 < len(sec.Content); i += 2 {
		key, val := sec.Content[i].Value, sec.Content[i+1]
		if key == "timeout" {
			if d, err := time.ParseDuration(val.Value); err == nil && (d <= 0 || d > maxTimeout) {
				bad(val, "compact.timeout %s: want a duration above 0 and at most %s, such as 2m", val.Value, maxTimeout)
			}
			continue
		}
		r, ok := ranges[key]
		var n int
		if !ok || val.Decode(&n) != nil || n >= r.min && n <= r.max || r.none && n == -1 {
			continue
		}
		want := fmt.Sprintf("%d to %d %s", r.min, r.max, r.unit)
		if r.none {
			want += ", or -1 for none"
		}
		bad(val, "compact.%s %s is out of range: want %s", key, val.Value, want)
	}
	return errs
}

// mapValue returns the value of key in the document root's top mapping.
func mapValue(root *yaml.Node, key string) *yaml.Node {
	n := root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// Summarizers lists the names NewSummarizer accepts.
var Summarizers = []string{"extractive", "command", "openai"}

// SummarizerEnv is what a summarizer is built from besides the config.
type SummarizerEnv struct {
	// Getenv reads the variable holding the openai summarizer's key.
	Getenv func(string) string
	// Trust says whether this machine allows the config's program or
	// endpoint (see Reach); nil allows neither.
	Trust Trust
	// DryRun builds a summarizer that is not to be run (a dry run uses
	// the extractive one in its place): no trust is needed.
	DryRun bool
}

// NewSummarizer builds the summarizer named name (empty means the
// config's, else extractive). The command and openai summarizers are
// refused with an *UntrustedError unless env.Trust allows what the
// config makes them reach.
func (c Config) NewSummarizer(name string, ws *layout.Workspace, env SummarizerEnv) (Summarizer, error) {
	if name == "" {
		name = c.Summarizer
	}
	var timeout time.Duration
	if c.Timeout != "" {
		d, err := time.ParseDuration(c.Timeout)
		if err != nil {
			return nil, fmt.Errorf("%s: compact.timeout %q: %w", ConfigFile, c.Timeout, err)
		}
		timeout = d
	}
	switch name {
	case "", "extractive":
		return Extractive{}, nil
	case "command":
		if len(c.Command) == 0 {
			return nil, fmt.Errorf("summarizer command: set compact.command in %s (e.g. [claude, -p])", ConfigFile)
		}
		if err := c.trusted(ws, name, env); err != nil {
			return nil, err
		}
		return Command{Argv: c.Command, Timeout: timeout, Templates: ws.Templates(), Dir: ProjectDir(ws)}, nil
	case "openai":
		o := c.OpenAI
		if o.BaseURL == "" || o.Model == "" {
			return nil, fmt.Errorf("summarizer openai: set compact.openai.base_url and compact.openai.model in %s", ConfigFile)
		}
		if err := c.trusted(ws, name, env); err != nil {
			return nil, err
		}
		key := ""
		if o.APIKeyEnv != "" {
			key = env.Getenv(o.APIKeyEnv)
		}
		return OpenAI{BaseURL: o.BaseURL, Model: o.Model, APIKey: key, Timeout: timeout, Templates: ws.Templates()}, nil
	}
	return nil, fmt.Errorf("summarizer %q: want one of extractive, command, openai", name)
}

// Apply copies the config's retention and budget settings into opts where
// opts leaves them unset.
func (c Config) Apply(opts *Options) {
	if opts.WisdomBudget == 0 {
		opts.WisdomBudget = c.WisdomBudget
	}
	if opts.KeepWeeks == 0 {
		opts.KeepWeeks = c.KeepWeeks
	}
	if opts.KeepRecentDays == 0 {
		opts.KeepRecentDays = c.KeepRecentDays
	}
	if opts.KeepStubDays == 0 {
		opts.KeepStubDays = c.KeepStubDays
	}
	if opts.WeeklyBudget == 0 {
		opts.WeeklyBudget = c.WeeklyBudget
	}
	if opts.MonthlyBudget == 0 {
		opts.MonthlyBudget = c.MonthlyBudget
	}
	if c.Archive != nil && !*c.Archive {
		opts.NoArchive = true
	}
}
