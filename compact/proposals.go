package compact

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tmemhq/tmem/layout"
)

// A model's summary is data, not instructions. When a summary or wisdom
// sentence has no support in the unit's sources (see unsupported), the
// whole unit is held back as a proposal: nothing of it is written, its
// sources stay, and the model's text is kept in
// .teammates/.tmp/compact/proposals/<unit>.json for a person to read. Later
// runs do not ask the model again while the proposal is there; a person
// applies it with `tmem compact --apply ID` (the unit is planned again
// with the kept text, and applied only if its sources did not change) or
// drops it with `tmem compact --discard ID`.

// ProposalDir holds the proposals, relative to the workspace root.
const ProposalDir = ".tmp/compact/proposals"

// Proposal is a unit held back because a model wrote text that its
// sources do not support.
type Proposal struct {
	ID       string `json:"id"` // the unit, "beacon/weekly/2026-W11"
	Teammate string `json:"teammate"`
	Kind     Kind   `json:"kind"`
	File     string `json:"file"` // workspace-relative
	// Unsupported are the model's sentences that the sources do not
	// support.
	Unsupported []string `json:"unsupported"`
	// Changes are the files applying it would write and delete.
	Changes []string `json:"changes"`
	// Answers are the model's summaries, by request.
	Answers map[string]string `json:"answers"`
}

// propose holds the unit u back as a proposal.
func (pl *planner) propose(u Unit, answers map[string]string, doubtful []string) {
	p := Proposal{ID: u.ID, Teammate: u.Teammate, Kind: u.Kind, File: proposalFile(u.ID), Unsupported: doubtful, Answers: map[string]string{}}
	for k, v := range answers {
		p.Answers[k] = v
	}
	for _, w := range u.Writes {
		p.Changes = append(p.Changes, "write "+w.Path)
	}
	for _, d := range u.Deletes {
		verb := "delete "
		if d.Stub != "" {
			verb = "stub "
		}
		p.Changes = append(p.Changes, verb+d.Path)
	}
	pl.p.Proposals = append(pl.p.Proposals, p)
}

func proposalFile(id string) string {
	return ProposalDir + "/" + strings.ReplaceAll(id, "/", "_") + ".json"
}

// saveProposals writes the plan's proposals.
func saveProposals(ws *layout.Workspace, p *Plan) error {
	for _, pr := range p.Proposals {
		b, err := json.MarshalIndent(pr, "", "  ")
		if err != nil {
			return fmt.Errorf("save proposal %s: %w", pr.ID, err)
		}
		if err := ws.WriteFile(pr.File, append(b, '\n')); err != nil {
			return fmt.Errorf("save proposal %s: %w", pr.ID, err)
		}
	}
	return nil
}

// held is a model's answer kept in a proposal, with why it was held.
type held struct {
	text        string
	unsupported []string
}

// loadHeld reads every kept proposal's answers, by request key.
func loadHeld(ws *layout.Workspace) (map[string]held, error) {
	all, err := Proposals(ws)
	out := map[string]held{}
	for _, p := range all {
		for k, v := range p.Answers {
			out[k] = held{text: v, unsupported: p.Unsupported}
		}
	}
	return out, err
}

// Proposals lists the proposals kept in the workspace. One that cannot be
// read is reported in the error; the others are still returned.
func Proposals(ws *layout.Workspace) ([]Proposal, error) {
	ents, err := ws.ReadDir(ProposalDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read proposals: %w", err)
	}
	var out []Proposal
	var errs []error
	for _, e := range ents {
		if !e.Type().IsRegular() || filepath.Ext(e.Name()) != ".json" {
			continue
		}
		rel := ProposalDir + "/" + e.Name()
		p, err := readProposal(ws, rel)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, errors.Join(errs...)
}

func readProposal(ws *layout.Workspace, rel string) (Proposal, error) {
	var p Proposal
	b, err := ws.ReadFile(rel, layout.MaxFileSize)
	if err != nil {
		return p, fmt.Errorf("read proposal %s: %w", rel, err)
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return p, fmt.Errorf("read proposal %s: %w (delete the file to drop it)", rel, err)
	}
	if p.ID == "" || p.Teammate == "" || proposalFile(p.ID) != rel {
		return p, fmt.Errorf("read proposal %s: it does not name its unit (delete the file to drop it)", rel)
	}
	return p, nil
}

// findProposal finds a kept proposal by its unit ID or its file.
func findProposal(ws *layout.Workspace, id string) (Proposal, error) {
	rel := id
	if !strings.HasPrefix(id, ProposalDir+"/") {
		rel = proposalFile(id)
	}
	if _, err := ws.Stat(rel); err != nil {
		return Proposal{}, fmt.Errorf("no proposal %q (tmem compact --dry-run lists them)", id)
	}
	return readProposal(ws, rel)
}

// ApplyProposal applies a kept proposal (by unit ID or file): the unit is
// planned again with the model's kept text, and applied only if its
// sources are what they were. The proposal is removed once applied.
func ApplyProposal(ctx context.Context, ws *layout.Workspace, id string, opts Options) (*Result, error) {
	p, err := findProposal(ws, id)
	if err != nil {
		return nil, err
	}
	opts.Teammates = []string{p.Teammate}
	opts.only, opts.replay = p.ID, p.Answers
	opts.Summarizer = staleProposal{p.ID}
	opts.Episodic, opts.Semantic = p.Kind != KindWisdom, p.Kind == KindWisdom
	res, err := Run(ctx, ws, opts)
	if err != nil || opts.DryRun {
		return res, err
	}
	applied := false
	for _, u := range res.Plan.Units {
		applied = applied || u.ID == p.ID
	}
	if !applied {
		return res, fmt.Errorf("proposal %s: nothing left to apply; drop it with tmem compact --discard %s", p.ID, p.ID)
	}
	return res, nil // Run dropped the proposal once its unit was applied
}

// DiscardProposal removes a kept proposal; its unit is planned afresh by
// the next run.
func DiscardProposal(ws *layout.Workspace, id string) error {
	p, err := findProposal(ws, id)
	if err != nil {
		return err
	}
	return ws.Remove(p.File)
}

// staleProposal answers every request a proposal did not foresee: its
// sources changed since it was made.
type staleProposal struct{ id string }

func (s staleProposal) Summarize(context.Context, Request) (string, error) {
	return "", fmt.Errorf("proposal %s: its sources changed since it was made; run tmem compact to plan it again", s.id)
}

// settleProposals drops the kept proposals whose unit this run applied
// (their text is out of date) and lists the others that it did not hold
// again as pending.
func settleProposals(ws *layout.Workspace, res *Result) error {
	kept, err := Proposals(ws)
	held := map[string]bool{}
	for _, p := range res.Plan.Proposals {
		held[p.ID] = true
	}
	applied := map[string]bool{}
	if !res.DryRun {
		for _, u := range res.Plan.Units {
			applied[u.ID] = true
		}
	}
	for _, p := range kept {
		switch {
		case applied[p.ID]:
			if rerr := ws.Remove(p.File); rerr != nil {
				err = errors.Join(err, rerr)
			}
		case !held[p.ID]:
			res.Pending = append(res.Pending, p)
		}
	}
	return err
}
