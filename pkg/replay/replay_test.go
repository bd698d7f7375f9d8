package replay_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"workbench/pkg/body"
	"workbench/pkg/body/sim"
	"workbench/pkg/openrouter/openroutertest"
	"workbench/pkg/replay"
	"workbench/pkg/skill"
)

// fault is a simulator that hides a tool or fails where told.
type fault struct {
	*sim.Sim
	hide                         string // a tool it no longer lists
	tools, state, call, perceive error
}

func (f *fault) Tools(ctx context.Context) ([]body.Tool, error) {
	if f.tools != nil {
		return nil, f.tools
	}
	ts, err := f.Sim.Tools(ctx)
	out := ts[:0]
	for _, t := range ts {
		if t.Name != f.hide {
			out = append(out, t)
		}
	}
	return out, err
}

func (f *fault) StateHashes(ctx context.Context) (string, string, error) {
	if f.state != nil {
		return "", "", f.state
	}
	return f.Sim.StateHashes(ctx)
}

func (f *fault) Call(ctx context.Context, tool string, args map[string]any) (body.Result, error) {
	if f.call != nil {
		return body.Result{}, f.call
	}
	return f.Sim.Call(ctx, tool, args)
}

func (f *fault) Perceive(ctx context.Context) (any, error) {
	if f.perceive != nil {
		return nil, f.perceive
	}
	return f.Sim.Perceive(ctx)
}

// refusing is an authorizer that cannot decide.
type refusing struct{}

func (refusing) Authorize(context.Context, skill.Edge, body.Tool, map[string]any) (skill.Authorization, error) {
	return skill.Authorization{}, errors.New("the policy service is down")
}

// Edits of the world, made between edges.
var (
	// addFile gives the host its first file: the state's shape changes.
	addFile = func(w *sim.World) error {
		if w.Host.Files == nil {
			w.Host.Files = map[string]string{}
		}
		w.Host.Files["/tmp/note.txt"] = "x"
		return nil
	}
	// dropReadme removes the project page's README link.
	dropReadme = func(w *sim.World) error {
		for i := range w.Pages {
			if w.Pages[i].URL == widget {
				var keep []sim.Link
				for _, l := range w.Pages[i].Links {
					if l.Name != "README" {
						keep = append(keep, l)
					}
				}
				w.Pages[i].Links = keep
			}
		}
		return nil
	}
	// readmeGoesNowhere points the README link at the page it is on, and
	// changes the state's shape, so the click changes nothing.
	readmeGoesNowhere = func(w *sim.World) error {
		for i := range w.Pages {
			for j := range w.Pages[i].Links {
				if w.Pages[i].URL == widget && w.Pages[i].Links[j].Name == "README" {
					w.Pages[i].Links[j].Href = widget
				}
			}
		}
		return addFile(w)
	}
	retitle = func(w *sim.World) error {
		for i := range w.Pages {
			w.Pages[i].Title += " (edited)"
		}
		return nil
	}
)

// TestRunSteps walks DESIGN §5's steps for each edge — afforded, the
// state before, binding, re-authorization, acting and the state after —
// with a case for each way a step holds or fails.
func TestRunSteps(t *testing.T) {
	type want struct {
		status    string
		halted    int // -1 for none
		kind      skill.SurpriseKind
		osKind    string
		detail    string
		committed int
		level     string
		model     string
		cost      float64
	}
	halt := func(at int, kind skill.SurpriseKind, osKind, detail string) want {
		return want{status: skill.StatusHalted, halted: at, kind: kind, osKind: osKind, detail: detail, committed: at, level: skill.LevelFailed, model: replay.NoModel}
	}
	for _, tc := range []struct {
		name       string
		release    bool // replay newestRelease
		changelog  bool // replay openChangelog; else threeClicks
		repo       string
		again      []openroutertest.Step
		fault      fault
		edit       func(*sim.World) error
		editBefore int
		opts       func(*replay.Options)
		want       want
	}{
		// Step 1: the edge's tool must be afforded now.
		{name: "1 afforded: the tool is gone", fault: fault{hide: sim.BrowserClick},
			want: halt(1, skill.KindAffordanceDrift, "unexpected_structure", `no longer offers the tool "browser_click"`)},
		{name: "1 afforded: the tools cannot be listed", fault: fault{tools: errors.New("gone")},
			want: halt(0, skill.KindOther, "unexpected_error", "could not list its tools: gone")},
		// Step 2: edge 0 must start where the recording started.
		{name: "2 before: another shape", edit: addFile, editBefore: 0,
			want: halt(0, skill.KindStateHashMismatch, "unexpected_structure", "state before the first action differs")},
		{name: "2 before: the state cannot be read", fault: fault{state: errors.New("no screen")},
			want: halt(0, skill.KindOther, "unexpected_error", "could not report its state: no screen")},
		// Step 3: bind literal, input and model-chosen parameters.
		{name: "3 bind: literal and input, recorded input", want: want{status: skill.StatusSuccess, halted: -1, committed: 3, level: skill.LevelExact, model: replay.NoModel}},
		{name: "3 bind: a new input is substituted", repo: gadget,
			want: want{status: skill.StatusSuccess, halted: -1, committed: 3, level: skill.LevelStructural, model: replay.NoModel}},
		{name: "3 bind: an input value inside a recorded string", changelog: true, repo: gadget,
			want: want{status: skill.StatusSuccess, halted: -1, committed: 1, level: skill.LevelStructural, model: replay.NoModel}},
		{name: "3 bind: an unchanged input on a body that is not deterministic", opts: func(o *replay.Options) { o.Deterministic = false },
			want: want{status: skill.StatusSuccess, halted: -1, committed: 3, level: skill.LevelStructural, model: replay.NoModel}},
		{name: "3 bind: the model chooses again", release: true, repo: gadget,
			again: []openroutertest.Step{openroutertest.ToolCall("browser_click", map[string]any{"name": "Changelog"})},
			want:  want{status: skill.StatusSuccess, halted: -1, committed: 2, level: skill.LevelStructural, model: replayer, cost: 0.002}},
		{name: "3 bind: no model configured", release: true, opts: func(o *replay.Options) { o.Chooser = nil },
			want: halt(1, skill.KindOther, "unexpected_error", "no model is configured")},
		{name: "3 bind: the model refuses", release: true, again: []openroutertest.Step{openroutertest.Refuse("I will not click.")},
			want: func() want {
				w := halt(1, skill.KindModelRefusal, "other", "I will not click.")
				w.model, w.cost = replayer, 0.002
				return w
			}()},
		{name: "3 bind: the model answers without a call", release: true, again: []openroutertest.Step{openroutertest.Answer("It is v2.4.1.")},
			want: func() want {
				w := halt(1, skill.KindModelRefusal, "other", "did not call a tool")
				w.model, w.cost = replayer, 0.002
				return w
			}()},
		{name: "3 bind: the model calls another tool", release: true,
			again: []openroutertest.Step{openroutertest.ToolCall("browser_navigate", map[string]any{"url": widget + "/changelog"})},
			want: func() want {
				w := halt(1, skill.KindAffordanceDrift, "other", `called "browser_navigate"`)
				w.model, w.cost = replayer, 0.002
				return w
			}()},
		{name: "3 bind: the model leaves out the chosen argument", release: true,
			again: []openroutertest.Step{openroutertest.ToolCall("browser_click", map[string]any{"role": "link"})},
			want: func() want {
				w := halt(1, skill.KindAffordanceDrift, "other", `lacks the argument "name"`)
				w.model, w.cost = replayer, 0.002
				return w
			}()},
		{name: "3 bind: the model call fails", release: true, again: []openroutertest.Step{openroutertest.Error(500, "upstream down")},
			want: halt(1, skill.KindOther, "unexpected_error", "model: openrouter: 500")},
		{name: "3 bind: the body cannot show what it perceives", release: true, fault: fault{perceive: errors.New("blind")},
			want: halt(1, skill.KindOther, "unexpected_error", "could not show what it perceives: blind")},
		// Step 4: re-authorize under the same policy.
		{name: "4 authorize: denied", opts: func(o *replay.Options) {
			a := o.Authorizer.(replay.PolicyAuthorizer)
			a.Declared = []string{skill.CapabilityOS}
			o.Authorizer = a
		}, want: halt(0, skill.KindPolicyDeny, "unexpected_permission", "the policy said deny")},
		{name: "4 authorize: the authorizer fails", opts: func(o *replay.Options) { o.Authorizer = refusing{} },
			want: halt(0, skill.KindPolicyDeny, "unexpected_permission", "authorization failed: the policy service is down")},
		// Step 5: act, then compare the state after.
		{name: "5 act: the call fails", fault: fault{call: errors.New("connection reset")},
			want: halt(0, skill.KindOther, "unexpected_error", "the tool call failed: connection reset")},
		{name: "5 act: the tool reports an error", edit: dropReadme, editBefore: 1,
			want: halt(1, skill.KindOther, "unexpected_error", "the tool reported an error")},
		{name: "5 after: another shape", edit: addFile, editBefore: 1,
			want: halt(1, skill.KindStateHashMismatch, "unexpected_structure", "matches neither the recorded hash nor its shape")},
		{name: "5 after: nothing changed", edit: readmeGoesNowhere, editBefore: 1,
			want: halt(1, skill.KindStateHashMismatch, "unexpected_unchanged", "left the state unchanged")},
		{name: "5 after: same shape, other content, halt", edit: retitle, editBefore: 2,
			want: halt(2, skill.KindStateHashMismatch, "other", "recorded shape but other content")},
		{name: "5 after: same shape, other content, continue", edit: retitle, editBefore: 2,
			opts: func(o *replay.Options) {}, // the fallback is set below
			want: want{status: skill.StatusCompletedWithSurprises, halted: -1, kind: skill.KindStateHashMismatch, osKind: "other",
				detail: "recorded shape but other content", committed: 3, level: skill.LevelStructural, model: replay.NoModel}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			task, demo := threeClicksTask, threeClicks
			switch {
			case tc.release:
				task, demo = newestReleaseTask, newestRelease
			case tc.changelog:
				task, demo = openChangelogTask, openChangelog
			}
			l := newLab(t, demo, tc.again)
			b := l.teach(task, widget)
			if tc.want.status == skill.StatusCompletedWithSurprises {
				b.Manifest.FallbackBehavior = skill.FallbackContinue
			}
			repo := widget
			if tc.repo != "" {
				repo = tc.repo
			}
			f := tc.fault
			f.Sim = l.body()
			opt := l.options(b, repo)
			if tc.opts != nil {
				tc.opts(&opt)
			}
			edit := func() {
				if err := f.Mutate(tc.edit); err != nil {
					t.Fatal(err)
				}
			}
			if tc.edit != nil && tc.editBefore == 0 {
				edit()
			}
			var progress []int
			opt.Progress = func(re skill.ReplayEdge) {
				progress = append(progress, re.Index)
				if tc.edit != nil && tc.editBefore > 0 && re.Index == tc.editBefore-1 {
					edit()
				}
			}
			rec, err := replay.Run(context.Background(), b, &f, opt)
			if err != nil {
				t.Fatal(err)
			}
			if tc.changelog {
				// The recorded URL held the input's value; the new one
				// took its place.
				if p, _ := f.Perceive(context.Background()); p.(sim.Perception).Browser.URL != gadget+"/changelog" {
					t.Errorf("the browser is on %s, want %s", p.(sim.Perception).Browser.URL, gadget+"/changelog")
				}
			}
			rep, w := rec.Report, tc.want
			halted := -1
			if rep.HaltedAtEdge != nil {
				halted = *rep.HaltedAtEdge
			}
			if rep.Status != w.status || halted != w.halted || rep.EdgesCommitted != w.committed || rep.FidelityLevel != w.level {
				t.Fatalf("status %s halted at %d, %d committed, level %s; want %s at %d, %d, %s; surprises %+v",
					rep.Status, halted, rep.EdgesCommitted, rep.FidelityLevel, w.status, w.halted, w.committed, w.level, rep.SurpriseSignals)
			}
			if rep.ModelUsed != w.model || (w.cost == 0) != (rep.CostUSD == nil) || (rep.CostUSD != nil && *rep.CostUSD != w.cost) {
				t.Errorf("model_used %s, cost %v; want %s, %v", rep.ModelUsed, rep.CostUSD, w.model, w.cost)
			}
			if w.kind == "" {
				if len(rep.SurpriseSignals) != 0 {
					t.Errorf("surprises %+v", rep.SurpriseSignals)
				}
			} else {
				s := rep.SurpriseSignals[len(rep.SurpriseSignals)-1]
				if s.Kind != w.kind || s.SurpriseKind != w.osKind || !strings.Contains(s.Detail, w.detail) {
					t.Errorf("surprise %s/%s %q; want %s/%s containing %q", s.Kind, s.SurpriseKind, s.Detail, w.kind, w.osKind, w.detail)
				}
				if s.Token != "SurpriseSignal" || s.TraceID != b.Trace.TraceID || s.EdgeID != b.Trace.Edges[s.EdgeIndex].EdgeID {
					t.Errorf("surprise envelope %+v", s)
				}
			}
			// Every edge has a row; those after a halt did not run, and
			// Progress heard of each edge that did.
			if len(rec.Edges) != len(b.Trace.Edges) {
				t.Fatalf("%d edge rows for %d edges", len(rec.Edges), len(b.Trace.Edges))
			}
			ran := len(b.Trace.Edges)
			if w.halted >= 0 {
				ran = w.halted + 1
			}
			for i, re := range rec.Edges {
				if (i >= ran) != (re.Match == skill.MatchNotRun) || re.Committed != (i < w.committed) {
					t.Errorf("edge %d: match %s, committed %v", i, re.Match, re.Committed)
				}
			}
			if len(progress) != ran {
				t.Errorf("progress heard of edges %v, want %d", progress, ran)
			}
			if want := float64(w.committed) / float64(ran); rep.Fidelity != want {
				t.Errorf("fidelity %v, want %v", rep.Fidelity, want)
			}
		})
	}
}

// Replay refuses to start without a decision in scope or without a
// required input; a cancelled replay halts at the edge it would run.
func TestRunRejects(t *testing.T) {
	l := newLab(t, threeClicks, nil)
	b := l.teach(threeClicksTask, widget)
	for _, tc := range []struct {
		name string
		edit func(*replay.Options)
		want string
	}{
		{"no authorizer", func(o *replay.Options) { o.Authorizer = nil }, "no authorizer"},
		{"missing input", func(o *replay.Options) { o.Input = map[string]any{} }, `input "repo_url" is required`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := l.options(b, widget)
			tc.edit(&opt)
			if _, err := replay.Run(context.Background(), b, l.body(), opt); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want %q", err, tc.want)
			}
		})
	}
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		rec, err := replay.Run(ctx, b, l.body(), l.options(b, widget))
		if err != nil {
			t.Fatal(err)
		}
		if rec.Report.Status != skill.StatusHalted || *rec.Report.HaltedAtEdge != 0 || !strings.Contains(rec.Report.SurpriseSignals[0].Detail, "cancelled") {
			t.Errorf("status %s, surprises %+v", rec.Report.Status, rec.Report.SurpriseSignals)
		}
	})
}

// For every edge k, a world whose text changes just before edge k halts
// replay exactly at k, with the predicted and actual hashes in the
// surprise; the same change, which keeps the shape, passes structurally
// under continue_on_minor. The verifier re-derives the same outcome from
// the saved record.
func TestReplayFailsFastAtTheChangedEdge(t *testing.T) {
	l := newLab(t, threeClicks, nil)
	b := l.teach(threeClicksTask, widget)
	n := len(b.Trace.Edges)
	if n != 3 {
		t.Fatalf("%d edges", n)
	}
	for _, fallback := range []string{skill.FallbackHalt, skill.FallbackContinue} {
		for k := range n {
			t.Run(fmt.Sprintf("%s/edge %d", fallback, k), func(t *testing.T) {
				bd := l.body()
				edit := func() {
					if err := bd.Mutate(retitle); err != nil {
						t.Fatal(err)
					}
				}
				if k == 0 {
					edit()
				}
				b.Manifest.FallbackBehavior = fallback
				opt := l.options(b, widget)
				opt.Progress = func(re skill.ReplayEdge) {
					if re.Index == k-1 {
						edit()
					}
				}
				rec, err := replay.Run(context.Background(), b, bd, opt)
				if err != nil {
					t.Fatal(err)
				}
				r := l.save(b, rec)
				if fallback == skill.FallbackContinue {
					if rec.Report.Status != skill.StatusCompletedWithSurprises || rec.Report.FidelityLevel != skill.LevelStructural || rec.Report.EdgesCommitted != n {
						t.Fatalf("status %s level %s committed %d", rec.Report.Status, rec.Report.FidelityLevel, rec.Report.EdgesCommitted)
					}
					if g := gate(r.Derived, skill.GateReplayFidelity); g.Verdict != skill.VerdictPartial {
						t.Errorf("replay gate %s: %s", g.Verdict, g.Reason)
					}
					return
				}
				if g := gate(r.Derived, skill.GateReplayFidelity); g.Verdict != skill.VerdictFail || r.Verdict != skill.VerdictFail {
					t.Errorf("replay gate %s (%s), verdict %s", g.Verdict, g.Reason, r.Verdict)
				}
				if rec.Report.Status != skill.StatusHalted || rec.Report.HaltedAtEdge == nil || *rec.Report.HaltedAtEdge != k {
					t.Fatalf("status %s halted at %v, want edge %d; surprises %+v", rec.Report.Status, rec.Report.HaltedAtEdge, k, rec.Report.SurpriseSignals)
				}
				s := rec.Report.SurpriseSignals[len(rec.Report.SurpriseSignals)-1]
				want := b.Trace.Edges[k].StateAfter
				if k == 0 {
					want = b.Trace.Edges[0].StateBefore
				}
				if s.EdgeIndex != k || s.PredictedStateHash != want || s.ActualStateHash == "" || s.ActualStateHash == want {
					t.Errorf("surprise %+v, want predicted %s and a different actual hash", s, want)
				}
				if rec.Report.EdgesCommitted != k || rec.Report.Fidelity != float64(k)/float64(k+1) {
					t.Errorf("committed %d, fidelity %v", rec.Report.EdgesCommitted, rec.Report.Fidelity)
				}
			})
		}
	}
}
