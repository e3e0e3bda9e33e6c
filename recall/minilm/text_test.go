package minilm

import (
	"reflect"
	"testing"
)

func TestTokenIDs(t *testing.T) {
	tk, err := loadTokenizer("testdata/tiny")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		text string
		want []int64
	}{
		{"plain", "The cat sits on the mat", []int64{101, 1996, 4937, 7719, 2006, 1996, 13523, 102}},
		{"accented", "naïve café", []int64{101, 15743, 7668, 102}},
		{"cjk", "東京は日本", []int64{101, 1879, 1755, 1672, 1864, 1876, 102}},
		{"cjk no spaces in latin", "tmem東京", []int64{101, 1056, 4168, 2213, 1879, 1755, 102}},
		{"empty", "", []int64{101, 102}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := encode(tk, normalizeText(tt.text))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(e.ids, tt.want) {
				t.Errorf("ids = %v, want %v", e.ids, tt.want)
			}
		})
	}
}

func TestTruncation(t *testing.T) {
	tk, err := loadTokenizer("testdata/tiny")
	if err != nil {
		t.Fatal(err)
	}
	long := ""
	for i := 0; i < 400; i++ {
		long += "word "
	}
	e, err := encode(tk, normalizeText(long))
	if err != nil {
		t.Fatal(err)
	}
	if len(e.ids) != MaxTokens {
		t.Fatalf("len = %d, want %d", len(e.ids), MaxTokens)
	}
	if e.ids[0] != 101 || e.ids[MaxTokens-1] != 102 {
		t.Errorf("ends = %d..%d, want 101..102", e.ids[0], e.ids[MaxTokens-1])
	}
}
