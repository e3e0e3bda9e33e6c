package secrets

import (
	"encoding/base64"
	"math/rand/v2"
	"strings"
	"testing"
)

// Secrets in these tests are built at run time from seeded random
// characters, so the repository holds nothing a secret scanner would
// flag.

const (
	alnumChars  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b64Chars    = alnumChars + "+/"
	b64URLChars = alnumChars + "-_"
	base32Chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	hexChars    = "0123456789abcdef"
)

// rnd returns n characters of alphabet, the same for the same seed.
func rnd(seed uint64, alphabet string, n int) string {
	r := rand.New(rand.NewPCG(seed, 7))
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// jwt builds a signed token with the given header JSON.
func jwt(header string) string {
	enc := base64.RawURLEncoding
	return enc.EncodeToString([]byte(header)) + "." +
		enc.EncodeToString([]byte(`{"sub":"1234567890","name":"Ada","iat":1516239022}`)) + "." +
		rnd(11, b64URLChars, 43)
}

// pemBlock builds a private key block of label with a random body cut
// into lines of 64.
func pemBlock(label string, seed uint64) string {
	body := base64.StdEncoding.EncodeToString([]byte(rnd(seed, alnumChars, 300)))
	var b strings.Builder
	b.WriteString("-----BEGIN " + label + "-----\n")
	for len(body) > 64 {
		b.WriteString(body[:64] + "\n")
		body = body[64:]
	}
	b.WriteString(body + "\n-----END " + label + "-----")
	return b.String()
}

// spans lists what each finding covers, as "rule:secret".
func spans(t *testing.T, text string, fs []Finding) []string {
	t.Helper()
	var out []string
	for _, f := range fs {
		if f.Start < 0 || f.End > len(text) || f.Start >= f.End {
			t.Fatalf("finding %+v out of range for %d bytes", f, len(text))
		}
		out = append(out, f.Rule+":"+text[f.Start:f.End])
	}
	return out
}
