package minilm

import (
	"errors"
	"strings"
	"testing"
)

func TestIdentityWithoutOpening(t *testing.T) {
	t.Run("same as the opened model's", func(t *testing.T) {
		e := openTiny(t, BackendGo)
		dir := tinyModel(t)
		id, err := Identity(dir)
		if err != nil {
			t.Fatal(err)
		}
		if id != e.Identity() {
			t.Errorf("Identity = %q, the opened model says %q", id, e.Identity())
		}
	})
	tests := []struct {
		name    string
		dir     func(t *testing.T) string
		noModel bool
		want    string
	}{
		{"no folder", func(t *testing.T) string { return "" }, true, "tmem model pull"},
		{"folder without model", func(t *testing.T) string { return t.TempDir() }, true, "model.onnx not found"},
		{"config without hidden size", func(t *testing.T) string {
			dir := copyDir(t, tinyDir)
			writeFile(t, dir+"/config.json", `{"model_type": "bert"}`)
			return dir
		}, false, "hidden_size missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Identity(tt.dir(t))
			if err == nil || errors.Is(err, ErrNoModel) != tt.noModel || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Identity: %v; want an error with %q (no model: %v)", err, tt.want, tt.noModel)
			}
		})
	}
}

func TestSucceedsPreviousPipeline(t *testing.T) {
	e := openTiny(t, BackendGo)
	dir := tinyModel(t)
	_, prev, err := Identities(dir)
	if err != nil {
		t.Fatal(err)
	}
	if prev == e.Identity() {
		t.Fatalf("the previous pipeline's identity is the current one: %q", prev)
	}
	other := copyDir(t, tinyDir)
	writeFile(t, other+"/config.json", `{"hidden_size": 32, "changed": true}`)
	_, otherPrev, err := Identities(other)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		id   string
		ok   bool
	}{
		{"the previous pipeline, same files", prev, true},
		{"the current identity", e.Identity(), false},
		{"the previous pipeline, other files", otherPrev, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			differs, ok := e.Succeeds(tt.id)
			if ok != tt.ok || (differs != nil) != tt.ok {
				t.Errorf("Succeeds(%q) = %v, %v; want ok %v", tt.id, differs != nil, ok, tt.ok)
			}
			if ok && (differs("plain") || !differs("soft\u00adhyphen")) {
				t.Error("Succeeds gave a predicate other than DiffersFromPrevious")
			}
		})
	}
}
