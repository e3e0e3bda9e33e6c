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
	end := -1
	window := t[hdrEnd:min(len(t), hdrEnd+maxKeyBlock)]
	if j := strings.Index(window, "-----END "); j >= 0 {
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
// line: the rest of the header's line if it continues with escaped lines,
// then every following line of base64 or "Name: value" headers. It
// returns where the body ends and how many base64 characters it holds.
func bodyLines(t string, i int) (end, n int) {
	end = i
	for line := 0; end < len(t); line++ {
		nl := strings.IndexByte(t[end:], '\n')
		stop := len(t)
		if nl >= 0 {
			stop = end + nl
		}
		l := strings.TrimLeft(t[end:stop], " \t>")
		l = strings.TrimRight(l, " \t\r\"',")
		switch {
		case line == 0 && l == "":
		case keyLine(l):
			n += keyBody(l)
		default:
			if line == 0 {
				return i, 0
			}
			return trimEnd(t, end), n
		}
		if nl < 0 {
			return len(t), n
		}
		end = stop + 1
	}
	return trimEnd(t, end), n
}

// keyLine reports a line of key material or of a PEM header.
func keyLine(l string) bool {
	if l == "" {
		return false
	}
	if c := strings.Index(l, ": "); c > 0 && !strings.ContainsAny(l[:c], " \t") {
		return true // Proc-Type: 4,ENCRYPTED
	}
	for i := 0; i < len(l); i++ {
		if l[i] == '\\' && i+1 < len(l) && l[i+1] == 'n' {
			i++
			continue
		}
		if !base64Byte(l[i]) {
			return false
		}
	}
	return true
}

// trimEnd backs off the line break and blanks before i.
func trimEnd(t string, i int) int {
	for i > 0 && strings.IndexByte(" \t\r\n", t[i-1]) >= 0 {
		i--
	}
	return i
}

func base64Byte(c byte) bool { return alnum(c) || c == '+' || c == '/' || c == '=' }
