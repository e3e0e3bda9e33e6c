package layout

import (
	"bytes"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// ParseLenient parses a memory file for reading, forgiving frontmatter that
// is not valid YAML: a closed frontmatter block that does not parse (an
// unquoted ": " inside a value is the usual slip, as in
// "role: Frontend: UI lead") is read as "key: value" lines split at the
// first colon, and the body is parsed as usual, its line numbers unchanged.
// problem is then the error Parse gave, for the caller to report; it is nil
// when the file parsed strictly. Input that fails the text checks (size, NUL
// bytes, invalid UTF-8) or whose frontmatter is never closed fails with err,
// as with Parse.
//
// The returned Doc is for reading: its Bytes are the file as it was, and
// fields set on it are not written back faithfully.
func ParseLenient(path string, src []byte) (d *Doc, problem, err error) {
	return parseLenient(path, src, true)
}

// parseLenient is ParseLenient, parsing the body only when body is set
// (without, the Doc has its frontmatter and no entries or title).
func parseLenient(path string, src []byte, body bool) (d *Doc, problem, err error) {
	d, err = parse(path, src, body)
	if err == nil {
		return d, nil, nil
	}
	if checkText(path, src) != nil {
		return nil, nil, err
	}
	d = &Doc{Path: path, BodyLine: 1}
	if rest, ok := bytes.CutPrefix(src, []byte(bom)); ok {
		d.bom, src = true, rest
	}
	fm, off, ok := lenientFrontMatter(src)
	if !ok {
		return nil, nil, err
	}
	d.HasMeta, d.fm = true, fm
	d.Body, d.BodyLine = src[off:], lineAt(src, off)
	if body {
		d.parseBody()
	}
	return d, err, nil
}

// lenientFrontMatter reads a frontmatter block (the first non-blank line
// "---", up to the next "---" line) as "key: value" lines. Values are
// trimmed and lose one pair of surrounding quotes; lines without a colon,
// comments and indented lines (list items, nested maps) are skipped. The
// block keeps its text, so Bytes gives the file back as it was. off is
// where the body starts; ok is false when there is no closed block.
func lenientFrontMatter(src []byte) (fm *frontMatter, off int, ok bool) {
	lines := strings.SplitAfter(string(src), "\n")
	open := -1
	for i, line := range lines {
		l := strings.TrimSpace(line)
		switch {
		case open < 0 && l == "":
		case open < 0 && l == "---":
			open = i
		case open < 0:
			return nil, 0, false
		case l == "---":
			fm = &frontMatter{lead: strings.Join(lines[:open], ""), open: lines[open],
				yaml: strings.Join(lines[open+1:i], ""), close: line, eol: "\n",
				root: lenientMapping(lines[open+1 : i])}
			return fm, len(strings.Join(lines[:i+1], "")), true
		}
	}
	return nil, 0, false
}

// lenientMapping turns "key: value" lines into a YAML mapping of strings.
func lenientMapping(lines []string) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for _, line := range lines {
		l := strings.TrimSpace(line)
		if l == "" || strings.HasPrefix(l, "#") || line[0] == ' ' || line[0] == '\t' {
			continue
		}
		k, v, found := strings.Cut(l, ":")
		if !found || strings.TrimSpace(k) == "" {
			continue
		}
		m.Content = append(m.Content,
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: strings.TrimSpace(k)},
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: unquote(strings.TrimSpace(v))})
	}
	return m
}

func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return v
}
