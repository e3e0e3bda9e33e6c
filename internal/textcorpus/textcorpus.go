package textcorpus

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Invalid is the pool of Random that stands for a byte of invalid UTF-8.
const Invalid = "\xff"

// Word is n characters drawn from alphabet.
func Word(rng *rand.Rand, n int, alphabet string) string {
	r := []rune(alphabet)
	var b strings.Builder
	for range n {
		b.WriteRune(r[rng.IntN(len(r))])
	}
	return b.String()
}

// Random is n texts of up to max characters, each drawn from a pool drawn
// from pools; the pool Invalid gives the byte 0xff.
func Random(rng *rand.Rand, n, max int, pools []string) []string {
	runes := make([][]rune, len(pools))
	for i, p := range pools {
		runes[i] = []rune(p)
	}
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for range rng.IntN(max) {
			j := rng.IntN(len(pools))
			if pools[j] == Invalid {
				b.WriteString(Invalid)
				continue
			}
			b.WriteRune(runes[j][rng.IntN(len(runes[j]))])
		}
		out[i] = b.String()
	}
	return out
}

// Common is text of the kinds every tokenizer test wants, by kind, with
// long texts up to about scale characters; rng draws the random words.
func Common(rng *rand.Rand, scale int) map[string][]string {
	return map[string][]string{
		"scripts and marks": {
			"naïve café résumé Ångström Øresund", "Ελληνικά κείμενα", "русский текст, и ещё",
			"العربية نص", "हिन्दी पाठ देवनागरी", "e\u0301\u0301\u0301 combining", "Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǫ̗",
			"ﬁ ligature ½ ⅓ Ⅻ ²³", "İstanbul ǅemal ẞtraße Kelvin\u212a \u212bngstrom", "ϒ ϓ ϔ",
		},
		"cjk": {
			"東京は日本の首都です。", "我们明天在北京见面，好吗？", "한국어 텍스트와 숫자 12345",
			"カタカナとひらがなの混在テキスト", "中文English混合text测试", "tmem東京", "\U00020000\U0002a700\U0002f800 rare ideographs",
			strings.Repeat("漢字仮名交じり文", scale/8),
		},
		"emoji and symbols": {
			"🚀 launch 🎉🎉🎉", "👩‍👩‍👧‍👦 family", "🇩🇪🇫🇷🇯🇵 flags", "👍🏽👍🏿 skin tones", "emoji✅in❌text",
			"€100 © ® ™ ° ± × ÷ → ⇒ ∀ ∑", strings.Repeat("😀", scale/2),
		},
		"long words": {
			"pneumonoultramicroscopicsilicovolcanoconiosis", "Donaudampfschifffahrtsgesellschaftskapitän",
			strings.Repeat("a", 99), strings.Repeat("a", 100), strings.Repeat("a", 101), strings.Repeat("é", 101),
			Word(rng, scale, "abcdefghijklmnopqrstuvwxyz"), Word(rng, scale/2, "0123456789abcdef"),
			"sha256:" + Word(rng, 64, "0123456789abcdef"), strings.Repeat("=", scale), strings.Repeat("-_", scale/3),
			strings.Repeat("1234567890", scale/20),
		},
		"whitespace runs": {
			strings.Repeat(" ", scale), strings.Repeat("\t", scale/3), strings.Repeat("\n", scale/5), " \n\n  \n\t \r\n\r\n",
			"word" + strings.Repeat(" ", 17) + "word", "trailing   \n   leading", "\u00a0nbsp\u00a0\u3000ideographic\u3000",
			"x\n \ny", "\n \n \n", "   ", "\u2003em\u2002en\u2009thin", strings.Repeat(" \t\n", scale/3) + "end",
		},
		"invalid utf-8": {"\xff\xfe bytes", "ok\xc3(bad", "\xed\xa0\x80 surrogate", "tail\xe2\x82"},
	}
}

// Log is a pasted log of at least n bytes, as a task may hold one: a
// question, then timestamped lines with levels, request ids, paths,
// numbers and a few words each, stack traces indented with a tab, blank
// lines and continuation lines that start with a slash.
func Log(rng *rand.Rand, n int) string {
	words := strings.Fields("error retry timeout connection refused upstream shipment carrier eta rollover " +
		"ingest backlog queue worker failed succeeded latency index search release freeze customer report")
	levels := []string{"INFO", "WARN", "ERROR", "DEBUG"}
	var b strings.Builder
	b.WriteString("Why did the ETA rollover test fail on CI? Here is the log:\n\n")
	for s := 0; b.Len() < n; s += 1 + rng.IntN(9) {
		fmt.Fprintf(&b, "2026-11-%02dT%02d:%02d:%02d.%03dZ %s worker-%d req=%016x path=/api/v1/shipments/%d took=%dms msg=\"",
			1+s/86400%28, s/3600%24, s/60%60, s%60, rng.IntN(1000), levels[rng.IntN(len(levels))],
			rng.IntN(64), rng.Uint64(), rng.IntN(10_000_000), rng.IntN(5000))
		for i := range 6 {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[rng.IntN(len(words))])
		}
		b.WriteString("\"\n")
		switch rng.IntN(40) {
		case 0:
			fmt.Fprintf(&b, "\tat com.example.eta.Rollover%d.apply(Rollover.java:%d)\n\tat com.example.ingest.Worker.run(Worker.java:%d)\n", rng.IntN(9), rng.IntN(900), rng.IntN(900))
		case 1:
			b.WriteString("\n")
		case 2:
			fmt.Fprintf(&b, "/var/log/tmem/worker-%d.log: rotated\n", rng.IntN(64))
		}
	}
	return b.String()
}

// Files is the content of every file under dir (the bundled example
// workspace, say); fewer than min files fail tb.
func Files(tb testing.TB, dir string, min int) []string {
	tb.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out = append(out, string(b))
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	if len(out) < min {
		tb.Fatalf("only %d files in %s", len(out), dir)
	}
	return out
}
