package recall

import (
	"reflect"
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
