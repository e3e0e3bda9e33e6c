package secrets

import "strings"

// maxBlock bounds the lines read below a secret-like name for the values
// nested under it.
const maxBlock = 4 * maxValue

// nestedValues reads the values nested under the secret-like name at ns,
// whose value starts at i, as values of that name (rule as), and adds
// those that look like secrets to s.more: the scalars of a flow mapping
// or list ("password: {current: …, old: […]}"), or, when nothing follows
// the name on its line, the block of lines below it indented deeper than
// the name ("password:" then "  current: …" or "  - …"). A nested key
// that names a secret itself is read by its own hint as well; its finding
// wins. A name inside the last flow read is not read again for a flow,
// nor one inside the last block read for a block: its values were read as
// the outer name's, and reading each nested name anew would make text
// nested without end quadratic. (A block reads a line's first word, so a
// flow in a line of it is read on its own.) "#" after white space is a
// comment, as in YAML; glued to the separator it is a value's first
// character. It reports whether the value is nested.
func (s *scan) nestedValues(ns, i int, as *rule) bool {
	t := s.text
	add := func(vs, ve int) {
		vs = afterScheme(t, vs, ve)
		if m, ok := assigned(t, vs, ve, as); ok {
			m.nested = true
			s.more = append(s.more, m)
		}
	}
	switch {
	case i < len(t) && (t[i] == '{' || t[i] == '['):
		if ns >= s.flowTo {
			s.flowTo = flowValues(t, i, add)
		}
	case i >= len(t) || t[i] == '\n' || t[i] == '\r' || t[i] == '#' && (t[i-1] == ' ' || t[i-1] == '\t'):
		if ns >= s.blockTo {
			s.blockTo = blockValues(t, ns, i, add)
		}
	default:
		return false
	}
	return true
}

// blockValues calls add with the values in the lines after the one at i
// that are indented deeper than the name at ns (or as deep, for list
// items), up to the first line that is not (blank lines aside), reading
// at most maxBlock bytes. It returns where it stopped reading.
func blockValues(t string, ns, i int, add func(vs, ve int)) int {
	col, ok := column(t, ns)
	if !ok {
		return i
	}
	end := min(len(t), i+maxBlock)
	k := i
	for k < end {
		n := strings.IndexByte(t[k:end], '\n')
		if n < 0 {
			break
		}
		line := k + n + 1
		j := skip(t, line, " \t\r")
		if j < len(t) && t[j] == '\n' {
			k = j
			continue
		}
		if j >= end || j-line < col || j-line == col && !listItem(t, j) {
			return line
		}
		lineValue(t, j, add)
		k = j
	}
	return end
}

// listItem reports whether a list item starts at j: YAML lets a list be
// indented as deep as the name it is the value of.
func listItem(t string, j int) bool {
	return j+1 < len(t) && t[j] == '-' && (t[j+1] == ' ' || t[j+1] == '\t')
}

// lineValue reads the value of one line of a block at j: after list
// markers ("- "), the value of "key: value", or the line's first word.
// A comment or an empty value gives none.
func lineValue(t string, j int, add func(vs, ve int)) {
	for listItem(t, j) {
		j = skip(t, j+1, " \t")
	}
	if j >= len(t) || t[j] == '#' {
		return
	}
	ns := j
	if ks, after, ok := keyAt(t, j); ok {
		ns, j = ks, skip(t, after, " \t")
	}
	j, ok := yamlProperties(t, ns, j)
	if !ok {
		return
	}
	if j < len(t) && (t[j] == '{' || t[j] == '[') {
		_ = flowValues(t, j, add)
		return
	}
	add(schemeValue(t, j))
}

// flowValues calls add with each scalar in the YAML or JSON flow
// collection at i ("{current: a, old: [b, c]}"), keys left out, reading
// at most maxValue bytes. It returns where it stopped reading.
func flowValues(t string, i int, add func(vs, ve int)) int {
	end := min(len(t), i+maxValue)
	depth := 0
	j := i
	for j < end {
		switch c := t[j]; {
		case c == '{' || c == '[':
			depth++
			j++
		case c == '}' || c == ']':
			if depth--; depth <= 0 {
				return j + 1
			}
			j++
		case strings.IndexByte(", \t\r\n", c) >= 0:
			j++
		default:
			j = flowScalar(t, j, add)
		}
	}
	return j
}

// flowScalar reads the key or value at j in a flow collection and
// returns where reading goes on.
func flowScalar(t string, j int, add func(vs, ve int)) int {
	if _, after, ok := keyAt(t, j); ok {
		return after
	}
	if strings.IndexByte("\"'`", t[j]) >= 0 {
		vs, ve := readValue(t, j)
		add(vs, ve)
		if ve < len(t) && vs > j && t[ve] == t[j] { // a closing quote
			ve++
		}
		return max(ve, j+1)
	}
	ve := j
	for ve < len(t) && ve-j <= maxValue && strings.IndexByte(" \t\r\n,[]{}", t[ve]) < 0 {
		ve++
	}
	add(j, ve)
	return max(ve, j+1)
}

// keyAt reads a mapping key at j, bare or quoted, followed by ": " (or a
// colon that ends the line or the text; after a quoted key, any colon):
// ks is where the key's name starts, after just past the colon.
func keyAt(t string, j int) (ks, after int, ok bool) {
	ke, quoted := j, j < len(t) && (t[j] == '"' || t[j] == '\'')
	if quoted {
		window := t[j+1 : min(len(t), j+2+maxName)]
		n := strings.IndexAny(window, string(t[j])+"\n")
		if n < 0 || window[n] != t[j] {
			return 0, 0, false
		}
		ks, ke = j+1, j+2+n
	} else {
		for ke < len(t) && nameByte(t[ke]) && ke-j <= maxName {
			ke++
		}
		if ke == j {
			return 0, 0, false
		}
		ks = j
	}
	c := skip(t, ke, " \t")
	if c >= len(t) || t[c] != ':' || !quoted && c+1 < len(t) && strings.IndexByte(" \t\r\n", t[c+1]) < 0 {
		return 0, 0, false
	}
	return ks, c + 1, true
}

// afterScheme is where the value t[vs:ve] starts past an authorization
// scheme ("Bearer ", "Basic ", "token "), as in a quoted header value.
func afterScheme(t string, vs, ve int) int {
	for _, scheme := range []string{"bearer ", "basic ", "token "} {
		if hasPrefixFold(t[vs:ve], scheme) {
			return min(skip(t, vs+len(scheme), " "), ve)
		}
	}
	return vs
}
