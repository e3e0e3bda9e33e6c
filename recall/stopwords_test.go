package recall

import (
	"reflect"
	"strings"
	"testing"
)

func TestEnglishTerms(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"contraction of not", "Melanie won't go", []string{"melani", "not", "go"}},
		{"not written out", "she will not go", []string{"will", "not", "go"}},
		{"curly apostrophe", "it didn’t work", []string{"not", "work"}},
		{"cannot", "we cannot ship", []string{"not", "ship"}},
		{"no and never", "no tests, never again", []string{"no", "test", "never"}},
		{"quantifiers", "both kids and only some friends", []string{"both", "kid", "onli", "some", "friend"}},
		{"other stop words still go", "the cat is on the mat", []string{"cat", "mat"}},
	}
	a, err := analyzers()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := terms(a.en, tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("terms(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	t.Run("CJK text keeps its own analyzer", func(t *testing.T) {
		if got, want := terms(a.cjk, "東京タワー"), []string{"東京", "京タ", "タワ", "ワー"}; !reflect.DeepEqual(got, want) {
			t.Errorf("cjk terms = %q, want %q", got, want)
		}
	})
}

func TestCompounds(t *testing.T) {
	tests := []struct {
		name, in    string
		joined      []string
		split, none []string
	}{
		{"two words joined", "ice cream", []string{"icecream"}, nil, nil},
		{"hyphenated", "an e-mail", []string{"email"}, nil, nil},
		{"one word split, parts stemmed", "icecream", nil, []string{"ic\x1fcream", "icec\x1fream"}, nil},
		{"a short word split", "email", nil, []string{"e\x1fmail"}, nil},
		{"the second part has three letters or more", "email", nil, []string{"em\x1fail"}, []string{"ema\x1fil", "emai\x1fl"}},
		{"a name is not split", "Melanie", nil, nil, []string{"mel\x1fani"}},
		{"numbers are not joined", "v1 7", nil, nil, []string{"v17"}},
		{"words apart are not joined", "ice and cream", nil, nil, []string{"icecream"}},
		{"words a comma parts are not joined", "ice, cream", nil, nil, []string{"icecream"}},
	}
	a, err := analyzers()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			joined, split := a.compounds(tt.in, maxGroupTerms)
			got := map[string]bool{}
			for _, x := range append(joined, split...) {
				got[x] = true
			}
			for _, w := range append(tt.joined, tt.split...) {
				if !got[w] {
					t.Errorf("compounds(%q) = %q, %q: want %q", tt.in, joined, split, w)
				}
			}
			for _, n := range tt.none {
				if got[n] {
					t.Errorf("compounds(%q) = %q, %q: must not hold %q", tt.in, joined, split, n)
				}
			}
		})
	}
	t.Run("a word longer than any compound is not split", func(t *testing.T) {
		for _, n := range []int{maxCompound + 1, 40_000} {
			if _, split := a.compounds(strings.Repeat("a", n), maxGroupTerms); len(split) != 0 {
				t.Errorf("a word of %d letters split %d ways", n, len(split))
			}
		}
		if _, split := a.compounds(strings.Repeat("a", maxCompound), maxGroupTerms); len(split) == 0 {
			t.Errorf("a word of %d letters was not split", maxCompound)
		}
	})
}

// TestCompoundsMeet asks for a compound written one way and finds the
// line that writes it the other way, above a line that shares a part.
func TestCompoundsMeet(t *testing.T) {
	ws := exactWorkspace(t, map[string]string{
		"2025-06-10.md": daily("2025-06-10", "Dinner", "We had icecream after dinner."),
		"2025-06-11.md": daily("2025-06-11", "Dinner", "We had ice cream after dinner."),
		"2025-06-12.md": daily("2025-06-12", "Mail", "Sent an e-mail to the landlord."),
		"2025-06-13.md": daily("2025-06-13", "Dairy", "Bought cream and milk."),
		"2025-06-14.md": daily("2025-06-14", "Post", "The mail came late."),
	})
	ix, _ := openIndex(t, ws, Options{})
	tests := []struct{ name, query, want string }{
		{"two words find one", "where did we eat ice cream", "2025-06-10.md"},
		{"one word finds two", "icecream", "2025-06-11.md"},
		{"one word finds the hyphenated", "when did I send the email", "2025-06-12.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := bm25Paths(t, ix, tt.query)
			if !contains(got, "beacon/memory/"+tt.want) {
				t.Errorf("hits %v, want %s", got, tt.want)
			}
			for _, p := range got {
				if p == "beacon/memory/"+tt.want {
					break
				}
				if p == "beacon/memory/2025-06-13.md" || p == "beacon/memory/2025-06-14.md" {
					t.Errorf("hits %v: %s shares only a part, yet ranks above %s", got, p, tt.want)
				}
			}
		})
	}
}

func TestWordPairs(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"neighbours", "Melanie painted a sunrise", []string{"melani\x1fpaint", "paint\x1fsunris"}},
		{"stop words between", "the lake at the sunrise", []string{"lake\x1fsunris"}},
		{"not across a sentence", "Thanks, Melanie! I painted it.", nil},
		{"not after a speaker's colon", "Melanie: painted a lake", []string{"paint\x1flake"}},
		{"not across a comma", "red, white wine", []string{"white\x1fwine"}},
		{"across a wrapped line", "Melanie painted the\ngarden shed", []string{"melani\x1fpaint", "paint\x1fgarden", "garden\x1fshed"}},
		{"not across a blank line", "blue\n\nsky", nil},
		{"not across a blank line of spaces", "blue\r\n \r\nsky", nil},
		{"not into a list item", "blue\n- sky", nil},
		{"not into a numbered item", "blue\n2 sky", []string{"2\x1fsky"}},
		{"not into a quote", "blue\n> sky", nil},
		{"not across an ellipsis", "wait… go", nil},
		{"not across a dash", "painted — garden – shed", nil},
		{"not across a CJK full stop", "lake。garden", nil},
		{"not across brackets", "the lake (sunrise)", nil},
		{"across a hyphen", "ice-cream truck", []string{"ic\x1fcream", "cream\x1ftruck"}},
	}
	a, err := analyzers()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, got := wordsAndPairs(a.en, tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("pairs of %q = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestPairsWithinPhrases asks for two words in a row and finds the line
// that writes them as a phrase above a shorter one where punctuation
// parts them ("Thanks, Melanie! I painted").
func TestPairsWithinPhrases(t *testing.T) {
	ws := exactWorkspace(t, map[string]string{
		"2025-06-10.md": daily("2025-06-10", "Visit", "Thanks, Melanie! I painted this one."),
		"2025-06-11.md": daily("2025-06-11", "Weekend", "Melanie painted the garden shed on Sunday, then we talked about the holiday plans and the kids for a long while."),
	})
	ix, _ := openIndex(t, ws, Options{})
	got := bm25Paths(t, ix, "what has Melanie painted")
	if len(got) != 2 || got[0] != "beacon/memory/2025-06-11.md" {
		t.Errorf("hits %v, want the phrase first: beacon/memory/2025-06-11.md", got)
	}
}
