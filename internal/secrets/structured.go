package secrets

import (
	"encoding/base64"
	"encoding/json"
	"strings"
)

// jwtAt reads a signed (3 parts) or encrypted (5 parts) JSON Web Token:
// base64url parts joined by dots, the first decoding to a JSON object
// with an "alg". The last part must be long enough to be a signature or
// a tag, which leaves out unsigned tokens.
func jwtAt(s *scan, i int, _ string) (match, bool) {
	t := s.text
	if i > 0 && (base64URL(t[i-1]) || t[i-1] == '.') {
		return match{}, false
	}
	var parts []string
	j := i
	for len(parts) < 5 {
		k := j
		for k < len(t) && base64URL(t[k]) {
			k++
		}
		if k == j {
			break
		}
		parts = append(parts, t[j:k])
		j = k
		if j+1 < len(t) && t[j] == '.' && base64URL(t[j+1]) {
			j++
			continue
		}
		break
	}
	if len(parts) != 3 && len(parts) != 5 || len(parts[len(parts)-1]) < 16 || len(parts[1]) < 4 {
		return match{}, false
	}
	if j < len(t) && t[j] == '.' && j+1 < len(t) && base64URL(t[j+1]) {
		return match{}, false // more parts than a JWT has
	}
	return match{start: i, end: j}, jwtHeader(parts[0])
}

// jwtHeader reports a base64url JSON object with a string "alg".
func jwtHeader(p string) bool {
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(p, "="))
	if err != nil {
		return false
	}
	var h map[string]interface{}
	if json.Unmarshal(raw, &h) != nil {
		return false
	}
	alg, ok := h["alg"].(string)
	return ok && alg != ""
}

// urlPasswordAt reads the password of scheme://user:password@host. The
// password must not be a placeholder ($VAR, <password>, {{x}}, ***) or a
// plain word, so documentation URLs pass.
func urlPasswordAt(s *scan, i int, _ string) (match, bool) {
	t := s.text
	k := i
	for k > 0 && (alnum(t[k-1]) || strings.IndexByte("+.-", t[k-1]) >= 0) {
		k--
	}
	if i-k < 2 || !('a' <= t[k]|32 && t[k]|32 <= 'z') {
		return match{}, false
	}
	start := i + len("://")
	at := start
	for at < len(t) && strings.IndexByte("/?#@ \t\r\n\"'`<>()[]{}\\", t[at]) < 0 {
		at++
	}
	if at >= len(t) || t[at] != '@' {
		return match{}, false
	}
	c := strings.IndexByte(t[start:at], ':')
	if c < 0 {
		return match{}, false
	}
	pw := t[start+c+1 : at]
	if len(pw) < 6 || strings.ContainsAny(pw[:1], "$%<{[*") || wordish(pw) || entropy(pw) < 2 {
		return match{}, false
	}
	return match{start: start + c + 1, end: at}, true
}
