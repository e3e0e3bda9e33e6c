package secrets

import "strings"

// maxKeyBlock bounds how far a private key's END line is looked for.
const maxKeyBlock = 64 << 10

// privateKeyAt reads a "-----BEGIN … PRIVATE KEY-----" block: through its
// END line when there is one, else through the base64 lines that follow
// (a key pasted without its end is still a key). The block needs a
// base64 body, so prose that names the header is left alone. Lines may be
// indented or quoted ("> "), and the block may sit on one line with
// escaped line breaks ("\n"), as in JSON.
func privateKeyAt(s *scan, i int, _ string) (match, bool) {
	t := s.text
	label, hdrEnd, ok := pemLabel(t, i+len("-----BEGIN "))
	if !ok || !strings.Contains(label, "PRIVATE KEY") {
		return match{}, false
	}
	// The block ends at the next run of dashes: an END line, or another
	// header, in which case this one has no END. Stopping there keeps a
	// text of many headers linear.
	end := -1
	window := t[hdrEnd:min(len(t), hdrEnd+maxKeyBlock)]
	if j := strings.Index(window, "-----"); j >= 0 && strings.HasPrefix(window[j:], "-----END ") {
		if _, e, ok := pemLabel(t, hdrEnd+j+len("-----END ")); ok {
			end = e
			if keyBody(t[hdrEnd:hdrEnd+j]) < 40 {
				return match{}, false
			}
		}
	}
	if end < 0 {
		var n int
		end, n = bodyLines(t, hdrEnd)
		if n < 40 {
			return match{}, false
		}
	}
	for end < len(t) && alnum(t[end]) { // keep the redaction's right edge on a separator
		end++
	}
	return match{start: i, end: end}, true
}

// pemLabel reads "LABEL-----" at i: upper-case words, digits and spaces.
func pemLabel(t string, i int) (label string, end int, ok bool) {
	j := i
	for j < len(t) && j-i < 64 && (isUpper(t[j]) || '0' <= t[j] && t[j] <= '9' || t[j] == ' ') {
		j++
	}
	if j == i || !strings.HasPrefix(t[j:], "-----") {
		return "", 0, false
	}
	return t[i:j], j + 5, true
}

// keyBody counts the base64 characters of a block's body that stand in
// runs of 20 or more: key material, not prose.
func keyBody(body string) int {
	n, run := 0, 0
	for i := 0; i <= len(body); i++ {
		if i < len(body) && base64Byte(body[i]) {
			run++
			continue
		}
		if i+1 < len(body) && body[i] == '\\' && body[i+1] == 'n' { // an escaped line break ends a run
			i++
		}
		if run >= 20 {
			n += run
		}
		run = 0
	}
	return n
}

// bodyLines reads the key body after a header ending at i with no END
// line: escaped lines ("\n…") on the header's own line, or else every
// following line of base64 or "Name: value" headers. It returns where the
// body ends and how many base64 characters it holds. Anything else right
// after the header means no body.
func bodyLines(t string, i int) (end, n int) {
	rest := t[i:min(len(t), i+maxKeyBlock)]
	if strings.HasPrefix(rest, `\n`) {
		j := 0
		for j < len(rest) && (base64Byte(rest[j]) || strings.HasPrefix(rest[j:], `\n`)) {
			if rest[j] == '\\' {
				j++
			}
			j++
		}
		for strings.HasSuffix(rest[:j], `\n`) {
			j -= 2
		}
		return i + j, keyBody(rest[:j])
	}
	nl := skip(rest, 0, " \t\r")
	if nl == len(rest) || rest[nl] != '\n' {
		return i, 0
	}
	at := nl + 1
	for at < len(rest) {
		stop := strings.IndexByte(rest[at:], '\n')
		if stop < 0 {
			stop = len(rest)
		} else {
			stop += at
		}
		l := strings.TrimRight(strings.TrimLeft(rest[at:stop], " \t>"), " \t\r\"',")
		if !keyLine(l) {
			break
		}
		n += keyBody(l)
		at = stop + 1
	}
	return i + trimEnd(rest, min(at, len(rest))), n
}

// keyLine reports a line of key material or of a PEM header.
func keyLine(l string) bool {
	if l == "" {
		return false
	}
	i := 0
	for i < len(l) && base64Byte(l[i]) {
		i++
	}
	if i == len(l) {
		return true
	}
	c := strings.Index(l[:min(len(l), 64)], ": ")
	return c > 0 && !strings.ContainsAny(l[:c], " \t") // Proc-Type: 4,ENCRYPTED
}

// trimEnd backs off the line break and blanks before i.
func trimEnd(t string, i int) int {
	for i > 0 && strings.IndexByte(" \t\r\n", t[i-1]) >= 0 {
		i--
	}
	return i
}

func base64Byte(c byte) bool { return alnum(c) || c == '+' || c == '/' || c == '=' }
