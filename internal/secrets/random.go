package secrets

import (
	"math"
	"strings"
)

// minEntropy is the Shannon entropy, in bits per character, below which
// a value is too repetitive to be a generated secret (xxxx…, 0000…,
// aaaa-bbbb). Random base62 text of 12 characters has about 3.4.
const minEntropy = 3.0

// entropy is the Shannon entropy of s's bytes, in bits per byte.
func entropy(s string) float64 {
	if s == "" {
		return 0
	}
	var n [256]int
	for i := 0; i < len(s); i++ {
		n[s[i]]++
	}
	h := 0.0
	for _, c := range n {
		if c > 0 {
			p := float64(c) / float64(len(s))
			h -= p * math.Log2(p)
		}
	}
	return h
}

// placeholder reports a token body that stands in for a secret rather
// than being one: too repetitive, shaped like words, or already redacted.
func placeholder(body string) bool {
	return entropy(body) < minEntropy || wordish(body) || strings.Contains(body, "REDACTED")
}

// looksRandom reports whether a value assigned to a secret-like name
// looks generated: long enough, no spaces, letters mixed with digits or
// symbols, varied, and not words, a placeholder, a UUID, a path, a URL or
// a digest.
func looksRandom(v string) bool {
	if len(v) < 12 || len(v) > 1024 || strings.ContainsAny(v, " \t\r\n") {
		return false
	}
	if strings.ContainsAny(v[:1], "$%<{[(*/~.") || strings.Contains(v, "://") || strings.Contains(v, "REDACTED") {
		return false
	}
	if i := strings.IndexByte(v, ':'); i > 0 && digestName(v[:i]) {
		return false
	}
	var letter, other bool
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
			letter = true
		default:
			other = true
		}
	}
	return letter && other && entropy(v) >= minEntropy && !wordish(v) && !uuid(v)
}

// digestName reports hash names used as "sha256:…" prefixes.
func digestName(s string) bool {
	switch strings.ToLower(s) {
	case "md5", "sha1", "sha224", "sha256", "sha384", "sha512", "blake2b", "blake3", "xxh64", "crc32":
		return true
	}
	return false
}

// uuid reports the 8-4-4-4-12 hex form.
func uuid(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch i {
		case 8, 13, 18, 23:
			if s[i] != '-' {
				return false
			}
		default:
			if !hex(s[i]) {
				return false
			}
		}
	}
	return true
}

func hex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// wordish reports text shaped like words or an identifier: every part
// between separators is words in lower, upper, Title or camel case (each
// word with a vowel, or an upper-case acronym), optionally followed by up
// to two digits, or a number of up to four digits (a version, a year).
// Generated secrets mix cases and digits within a part and fail this.
func wordish(s string) bool {
	parts := strings.FieldsFunc(s, func(r rune) bool { return r > 127 || !alnum(byte(r)) })
	if len(parts) == 0 {
		return true
	}
	for _, p := range parts {
		if !wordPart(p) {
			return false
		}
	}
	return true
}

func wordPart(p string) bool {
	letters := strings.TrimRight(p, "0123456789")
	if letters == "" {
		return len(p) <= 4
	}
	if len(p)-len(letters) > 2 {
		return false
	}
	// Split camelCase and ACRONYMWord: each piece is an upper-case run or
	// an optional capital followed by lower-case letters.
	for i := 0; i < len(letters); {
		c := letters[i]
		if c >= '0' && c <= '9' {
			return false
		}
		j := i + 1
		if isUpper(c) {
			for j < len(letters) && isUpper(letters[j]) {
				j++
			}
			if j < len(letters) && j-i > 1 { // "APIKey": the run ends before "Key"
				j--
			}
		}
		k := j
		for k < len(letters) && !isUpper(letters[k]) && !(letters[k] >= '0' && letters[k] <= '9') {
			k++
		}
		if k-i < 2 && len(letters) > 1 {
			return false // a lone letter inside a part: "aBcD"
		}
		if k > j && !strings.ContainsAny(strings.ToLower(letters[i:k]), "aeiouy") {
			return false // a word has a vowel; acronyms (upper-case runs) need none
		}
		i = k
	}
	return true
}

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
