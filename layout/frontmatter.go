package layout

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/adrg/frontmatter"
	yaml "go.yaml.in/yaml/v3"
)

// frontMatter is a file's YAML frontmatter block, kept as the text it was
// written in. Set rewrites only the lines of the key it changes, so
// comments, quoting, key order and fields tmem does not know survive every
// rewrite byte for byte, and a diff shows just the field that changed.
type frontMatter struct {
	lead  string     // blank lines before the opening delimiter
	open  string     // the opening delimiter line, as written
	yaml  string     // the YAML between the delimiters, lines with their endings
	close string     // the closing delimiter line, as written
	root  *yaml.Node // the mapping the YAML holds; nil when it is empty
	eol   string     // the line ending the block uses
}

var yamlFormat = frontmatter.NewFormat("---", "---", func(b []byte, v interface{}) error {
	return yaml.Unmarshal(b, v)
})

// parseFrontMatter splits the frontmatter block off src when its first
// non-blank line is "---". It returns nil and no error when there is none,
// and the offset where the body starts.
func parseFrontMatter(path string, src []byte) (*frontMatter, int, error) {
	lines := strings.SplitAfter(string(src), "\n")
	openLine := -1
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if strings.TrimSpace(l) == "---" {
			openLine = i
		}
		break
	}
	if openLine < 0 {
		return nil, 0, nil
	}
	var node yaml.Node
	rest, err := frontmatter.Parse(bytes.NewReader(src), &node, yamlFormat)
	if err != nil {
		return nil, 0, blockError(path, lines, openLine, err)
	}
	if len(rest) == len(src) {
		return nil, 0, &ParseError{Path: path, Line: openLine + 1, Err: errors.New("bad frontmatter: opening '---' has no closing '---'")}
	}
	off := len(src) - len(rest)
	block := lines[openLine:]
	n := strings.Count(string(src[:off]), "\n") - openLine // lines of the block, delimiters included
	if !strings.HasSuffix(string(src[:off]), "\n") {
		n++
	}
	fm := &frontMatter{
		lead:  strings.Join(lines[:openLine], ""),
		open:  block[0],
		yaml:  strings.Join(block[1:n-1], ""),
		close: block[n-1],
		eol:   "\n",
	}
	if strings.HasSuffix(fm.open, "\r\n") {
		fm.eol = "\r\n"
	}
	if err := fm.load(path, openLine+1, &node); err != nil {
		return nil, 0, err
	}
	return fm, off, nil
}

// blockError is the *ParseError for a frontmatter block, opening at
// lines[open], whose YAML does not parse: at the line of the file that
// holds the mistake.
func blockError(path string, lines []string, open int, err error) *ParseError {
	end := open + 1
	for end < len(lines) && strings.TrimSpace(lines[end]) != "---" {
		end++
	}
	line, msg := yamlProblem(strings.Join(lines[open+1:end], ""), err)
	return &ParseError{Path: path, Line: open + 1 + line, Err: errors.New("bad frontmatter: " + msg)}
}

// load checks that the YAML is a mapping with scalar keys and keeps it.
func (fm *frontMatter) load(path string, openLine int, doc *yaml.Node) error {
	fm.root = nil
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil
	}
	m := doc.Content[0]
	if m.Kind == yaml.ScalarNode && m.Tag == "!!null" {
		return nil
	}
	if m.Kind != yaml.MappingNode {
		return &ParseError{Path: path, Line: openLine + m.Line, Err: errors.New("bad frontmatter: want key: value lines")}
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := m.Content[i]; k.Kind != yaml.ScalarNode {
			return &ParseError{Path: path, Line: openLine + k.Line, Err: fmt.Errorf("bad frontmatter: key at column %d is not a string", k.Column)}
		}
	}
	fm.root = m
	return nil
}

// repeatedKey is a top-level key set again in the block: its line and the
// line of the first, counted from the block's opening "---" (line 0).
type repeatedKey struct {
	key         string
	line, first int
}

// repeatedKeys lists the keys set more than once, in file order. YAML
// forbids them; tmem reads the first, while other tools take the last or
// refuse the file.
func (fm *frontMatter) repeatedKeys() []repeatedKey {
	if fm == nil || fm.root == nil {
		return nil
	}
	first := map[string]int{}
	var out []repeatedKey
	for i := 0; i+1 < len(fm.root.Content); i += 2 {
		k := fm.root.Content[i]
		if l, ok := first[k.Value]; ok {
			out = append(out, repeatedKey{k.Value, k.Line, l})
			continue
		}
		first[k.Value] = k.Line
	}
	return out
}

// value returns the value node of key, or nil.
func (fm *frontMatter) value(key string) *yaml.Node {
	_, v := fm.pair(key)
	return v
}

// pair returns the key and value nodes of key, or nils.
func (fm *frontMatter) pair(key string) (k, v *yaml.Node) {
	if fm == nil || fm.root == nil {
		return nil, nil
	}
	for i := 0; i+1 < len(fm.root.Content); i += 2 {
		if fm.root.Content[i].Value == key {
			return fm.root.Content[i], fm.root.Content[i+1]
		}
	}
	return nil, nil
}

// keys lists the top-level keys in file order.
func (fm *frontMatter) keys() []string {
	if fm == nil || fm.root == nil {
		return nil
	}
	var out []string
	for i := 0; i+1 < len(fm.root.Content); i += 2 {
		out = append(out, fm.root.Content[i].Value)
	}
	return out
}

// set replaces the lines of key with key: value, or appends the pair when
// the key is new.
func (fm *frontMatter) set(key string, value interface{}) error {
	if err := checkValue(key, value); err != nil {
		return err
	}
	text, err := encodePair(key, value)
	if err != nil {
		return err
	}
	lines := strings.SplitAfter(fm.yaml, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) > 0 && !strings.HasSuffix(lines[len(lines)-1], "\n") {
		lines[len(lines)-1] += fm.eol
	}
	from, to, ok := fm.span(key, lines)
	if ok {
		if v := fm.value(key); v.LineComment != "" && strings.Count(text, "\n") == 1 {
			text = strings.TrimSuffix(text, "\n") + " " + v.LineComment + "\n"
		}
		lines = append(lines[:from], append([]string{text}, lines[to+1:]...)...)
	} else {
		lines = append(lines, text)
	}
	out := strings.Join(lines, "")
	if fm.eol != "\n" {
		out = strings.ReplaceAll(strings.ReplaceAll(out, "\r\n", "\n"), "\n", fm.eol)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(out), &doc); err != nil {
		return fmt.Errorf("set %s: the frontmatter would not parse: %w", key, err)
	}
	fm.yaml = out
	return fm.load("frontmatter", 0, &doc)
}

// span returns the 0-based, inclusive range of lines that holds key and
// its value: from the key's line to the line before the next key, less
// the blank lines and unindented comments that open the next key.
func (fm *frontMatter) span(key string, lines []string) (from, to int, ok bool) {
	if fm.root == nil {
		return 0, 0, false
	}
	c := fm.root.Content
	for i := 0; i+1 < len(c); i += 2 {
		if c[i].Value != key {
			continue
		}
		from = c[i].Line - 1
		to = len(lines) - 1
		if i+2 < len(c) {
			to = c[i+2].Line - 2
		}
		for to > from && (strings.TrimSpace(lines[to]) == "" || strings.HasPrefix(lines[to], "#")) {
			to--
		}
		return from, to, from >= 0 && from < len(lines)
	}
	return 0, 0, false
}

// encodePair renders one key: value line (or block) as YAML. Strings that
// hold a line break are written double-quoted on one line, so that no
// value can ever produce a line that reads as a delimiter.
func encodePair(key string, value interface{}) (string, error) {
	var v yaml.Node
	if err := v.Encode(value); err != nil {
		return "", fmt.Errorf("set %s: %w", key, err)
	}
	quoteMultiline(&v)
	k := &yaml.Node{Kind: yaml.ScalarNode, Value: key}
	if err := k.Encode(key); err != nil {
		return "", fmt.Errorf("set %s: %w", key, err)
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	enc.CompactSeqIndent()
	if err := enc.Encode(&yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{k, &v}}); err != nil {
		return "", fmt.Errorf("set %s: %w", key, err)
	}
	if err := enc.Close(); err != nil {
		return "", fmt.Errorf("set %s: %w", key, err)
	}
	return b.String(), nil
}

// checkValue refuses keys and string values that are not text: YAML
// would write them as !!binary, which reads back as something else.
func checkValue(key string, value interface{}) error {
	vals := []string{}
	switch v := value.(type) {
	case string:
		vals = append(vals, v)
	case []string:
		vals = append(vals, v...)
	}
	if key == "" {
		return errors.New("set: empty key")
	}
	for _, s := range append(vals, key) {
		if err := checkText(key, []byte(s)); err != nil {
			return fmt.Errorf("set %q: %w", key, err)
		}
	}
	return nil
}

func quoteMultiline(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode && strings.ContainsAny(n.Value, "\n\r") {
		n.Style = yaml.DoubleQuotedStyle
	}
	for _, c := range n.Content {
		quoteMultiline(c)
	}
}

// bytes renders the block as it will be written.
func (fm *frontMatter) bytes() string { return fm.lead + fm.open + fm.yaml + fm.close }

// newFrontMatter is an empty block for a file that had none.
func newFrontMatter() *frontMatter {
	return &frontMatter{open: "---\n", close: "---\n", eol: "\n"}
}

// scalar returns a scalar node's text; "" for null and non-scalars.
func scalar(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return ""
	}
	return n.Value
}
