package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/skill"
	"workbench/pkg/store"
	"workbench/pkg/teach"
	"workbench/pkg/words"
	"workbench/pkg/workbench"
)

// compareTab is the skill page's Compare tab: a matrix of models × input
// sets, each cell one replay of Bundle proved and verified by the compare
// flow (workbench.Flows.Compare). The first input set is the inputs
// the skill was taught with; the user adds more, typed as on the replay
// page, each value's error beside its field.
//
// The flow keeps every matrix with the skill in the library
// (store.Comparison), so the tab shows the newest one of this version,
// or the one saved as this version, again after a reload. Save stores
// one next version carrying every cell's replay; OnSaved then tells the
// page, which reads the skill again.
type compareTab struct {
	app.Compo

	env *env
	// Bundle is the version shown; Newest says it is the skill's newest,
	// the only one a comparison may be saved onto.
	Bundle  *skill.Bundle
	Newest  bool
	OnSaved func(ctx app.Context, msg string)

	ownContext             // asynchronous answers are dispatched through it
	loadedOf   string      // the content hash of the bundle kept is read for
	mcp        mcpSettings // the tab's trust and host perceive call, for a browser or host skill

	models   []string
	sets     []compareSet // the sets the user added, after the taught one
	running  bool
	progress []string
	err      error
	kept     *store.Comparison
	keepErr  error
	loadErr  error
	saving   bool
	saveErr  error
	runSeq   latest
	loadSeq  latest
}

// compareSet is one input set the user added: the text in each field, by
// input name, and the error beside each.
type compareSet struct {
	raw  map[string]string
	errs map[string]string
}

func (c *compareTab) OnMount(ctx app.Context) {
	c.keep(ctx)
	c.mcp = readMCPSettings(ctx)
	c.models = []string{"", ""}
	c.loadKept(ctx)
}

func (c *compareTab) OnUpdate(ctx app.Context) {
	if c.Bundle != nil && c.Bundle.ContentHash != c.loadedOf {
		c.loadKept(ctx)
	}
}

// loadKept reads the comparison to show: the newest of this version, or
// the one saved as this version.
func (c *compareTab) loadKept(ctx app.Context) {
	ctx = c.own()
	b := c.Bundle
	if b == nil {
		return
	}
	c.loadedOf = b.ContentHash
	seq := c.loadSeq.next()
	ctx.Async(func() {
		var kept *store.Comparison
		st, err := c.env.store(ctx, nil)
		if err == nil {
			var all []store.Comparison
			all, err = st.Comparisons(ctx, b.SkillID)
			c.env.dropStore(err)
			for i := range all {
				if all[i].BundleHash == b.ContentHash || all[i].SavedVersion == b.SkillVersion {
					kept = &all[i]
					break
				}
			}
		}
		ctx.Dispatch(func(app.Context) {
			// A run started since answers with its own matrix.
			if !c.loadSeq.is(seq) || c.running {
				return
			}
			c.loadErr = err
			if kept != nil {
				c.kept = kept
			}
		})
	})
}

func (c *compareTab) onModel(i int) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		c.models[i] = recordTyped(ctx)
	}
}

func (c *compareTab) onAddModel(ctx app.Context, e app.Event) {
	c.models = append(c.models, "")
}

// onAddSet adds an input set, its fields holding the taught values.
func (c *compareTab) onAddSet(ctx app.Context, e app.Event) {
	s := compareSet{raw: map[string]string{}, errs: map[string]string{}}
	for _, in := range c.Bundle.Manifest.Inputs {
		if v, ok := c.Bundle.Evidence.Scenario.Inputs[in.Name]; ok {
			s.raw[in.Name] = teach.ExampleText(v)
		}
	}
	c.sets = append(c.sets, s)
}

func (c *compareTab) onRemoveSet(j int) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		c.sets = append(c.sets[:j:j], c.sets[j+1:]...)
	}
}

func (c *compareTab) onSetField(j int, name string) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		c.sets[j].raw[name] = recordTyped(ctx)
		delete(c.sets[j].errs, name)
	}
}

func (c *compareTab) onRun(ctx app.Context, e app.Event) {
	e.PreventDefault()
	ctx = c.own()
	if c.running || c.Bundle == nil {
		return
	}
	var models []string
	for _, m := range c.models {
		if m = strings.TrimSpace(m); m != "" {
			models = append(models, m)
		}
	}
	c.err, c.progress, c.saveErr, c.keepErr = nil, nil, nil, nil
	for j := range c.sets {
		c.sets[j].errs = map[string]string{}
	}
	// The matrix is kept with the skill, for its history and a later Save.
	req := workbench.CompareRequest{Bundle: c.Bundle, Models: models, Sets: []workbench.InputSet{{}}, Keep: true}
	for _, s := range c.sets {
		var vs []teach.Value
		for _, in := range c.Bundle.Manifest.Inputs {
			if raw, ok := s.raw[in.Name]; ok {
				vs = append(vs, teach.Value{Name: in.Name, Raw: raw})
			}
		}
		req.Sets = append(req.Sets, workbench.InputSet{Values: vs})
	}
	seq := c.runSeq.next()
	req.Progress = func(p workbench.CompareProgress) {
		if p.Edge == nil {
			return
		}
		line := fmt.Sprintf("%s, input set %d: %s", p.Model, p.Set+1, edgeProgress(c.Bundle, *p.Edge))
		ctx.Dispatch(func(app.Context) {
			if c.runSeq.is(seq) {
				c.progress = append(c.progress, line)
			}
		})
	}
	c.running = true
	ctx.Async(func() {
		cmp, err := c.env.flows.Compare(withMCPSettings(ctx, c.mcp), req)
		c.env.dropStore(err)
		ctx.Dispatch(func(app.Context) {
			if !c.runSeq.is(seq) {
				return
			}
			c.running, c.err = false, err
			var se *workbench.InputSetError
			var ie *teach.InputError
			if errors.As(err, &se) && se.Set > 0 && errors.As(err, &ie) && ie.Name != "" {
				c.sets[se.Set-1].errs[ie.Name] = ie.Msg
			}
			if cmp != nil {
				k := cmp.Kept
				c.kept, c.keepErr = &k, cmp.KeepErr
			}
		})
	})
}

func (c *compareTab) onSave(ctx app.Context, e app.Event) {
	ctx = c.own()
	if c.kept == nil || c.saving {
		return
	}
	k := *c.kept
	c.saving, c.saveErr = true, nil
	ctx.Async(func() {
		k, err := c.env.flows.SaveComparison(ctx, k)
		c.env.dropStore(err)
		ctx.Dispatch(func(ctx app.Context) {
			c.saving, c.saveErr = false, err
			if err != nil {
				return
			}
			c.kept = &k
			if c.OnSaved != nil {
				c.OnSaved(ctx, "Saved the comparison as version "+strconv.Itoa(k.SavedVersion)+", carrying every cell's replay.")
			}
		})
	})
}

// edgeProgress is one replayed edge as a progress line.
func edgeProgress(b *skill.Bundle, e skill.ReplayEdge) string {
	tool := "?"
	if e.Index >= 0 && e.Index < len(b.Trace.Edges) {
		tool = b.Trace.Edges[e.Index].Tool.Name
	}
	s := fmt.Sprintf("edge %d %s: %s", e.Index, tool, words.Match(e.Match))
	if e.Committed {
		s += ", committed"
	} else if e.Match != skill.MatchNotRun {
		s += ", not committed"
	}
	return s
}

func (c *compareTab) Render() app.UI {
	if c.Bundle == nil {
		return app.Div()
	}
	fields := make([]app.UI, len(c.models))
	for i, m := range c.models {
		id := "compare-model-" + strconv.Itoa(i)
		fields[i] = app.Div().Class("field").Body(
			app.Label().For(id).Text("Model "+strconv.Itoa(i+1)),
			app.Input().Type("text").ID(id).Value(m).Placeholder("provider/model-id").
				Attr("spellcheck", "false").OnInput(c.onModel(i)),
		)
	}
	note := "Every parameter of this skill is literal or bound to an input: replay makes no model call, and the comparison will say that it cannot tell the models apart."
	if c.Bundle.Trace.ModelBound() {
		note = "Parameters the model chose during the demonstration are chosen again, live, by each model, through this workbench's OpenRouter proxy with this tab's key."
	}
	sets := make([]app.UI, len(c.sets))
	for j, s := range c.sets {
		sets[j] = c.renderSet(j, s)
	}
	return app.Div().Body(
		app.H2().Text("Compare models"),
		app.P().Class("muted").Text("Replays this skill once per model and input set, each on a fresh body under the same policy; every replay is verified, and the results are set out as a matrix and kept with the skill. "+note),
		app.Form().ID("compare-form").OnSubmit(c.onRun).Body(
			app.Div().Class("compare-fields").Body(fields...),
			app.FieldSet().Class("compare-set").ID("compare-set-1").Body(
				app.Legend().Text("Input set 1: the inputs the skill was taught with"),
				app.P().Class("compare-set-values").Text(inputText(c.Bundle.Evidence.Scenario.Inputs)),
			),
			app.Div().ID("compare-sets").Body(sets...),
			&localPolicyPanel{env: c.env, Kind: c.Bundle.Manifest.BodyChoice},
			app.Div().Class("field-row").Body(
				app.Button().Type("button").Class("secondary").ID("compare-add").Text("Add a model").OnClick(c.onAddModel),
				app.If(len(c.Bundle.Manifest.Inputs) > 0, func() app.UI {
					return app.Button().Type("button").Class("secondary").ID("compare-add-set").Text("Add an input set").OnClick(c.onAddSet)
				}),
				app.Button().Type("submit").ID("compare-run").Disabled(c.running).Text("Run the comparison"),
			),
		),
		app.If(c.running || len(c.progress) > 0, func() app.UI {
			items := make([]app.UI, len(c.progress))
			for i, l := range c.progress {
				items[i] = app.Li().Text(l)
			}
			return app.Div().ID("compare-progress").Aria("live", "polite").Body(
				app.If(c.running, func() app.UI { return app.P().Class("status status-pending").Text("Replaying…") }),
				app.Ol().Class("progress-list").Body(items...),
			)
		}),
		app.If(c.err != nil, func() app.UI {
			return app.Div().Class("status status-error").ID("compare-error").Role("alert").Body(
				app.P().Text("The comparison could not run."),
				app.P().Class("error-text").Text(errText(c.err)),
			)
		}),
		app.If(c.loadErr != nil, func() app.UI {
			return app.P().Class("status status-error").Role("alert").Text("The kept results could not be read: " + errText(c.loadErr))
		}),
		app.If(c.kept != nil, func() app.UI { return c.renderMatrix(*c.kept) }),
	)
}

// renderSet is one added input set: a field per input, typed as the
// manifest declares it, with its error beside it.
func (c *compareTab) renderSet(j int, s compareSet) app.UI {
	n := strconv.Itoa(j + 2)
	fields := make([]app.UI, 0, len(c.Bundle.Manifest.Inputs))
	for _, in := range c.Bundle.Manifest.Inputs {
		id := "compare-set-" + n + "-" + in.Name
		errID := id + "-error"
		msg := s.errs[in.Name]
		label := inputLabel(in)
		control := inputControl(id, in, s.raw[in.Name], msg, 3, c.onSetField(j, in.Name))
		fields = append(fields, app.Div().Class("field").Body(
			app.Label().For(id).Text(label),
			control,
			app.If(msg != "", func() app.UI { return app.P().Class("field-error").ID(errID).Text(msg) }),
		))
	}
	return app.FieldSet().Class("compare-set").ID("compare-set-"+n).Body(
		app.Legend().Text("Input set "+n),
		app.Div().Body(fields...),
		app.Button().Type("button").Class("secondary").ID("compare-remove-set-"+n).Text("Remove input set "+n).OnClick(c.onRemoveSet(j)),
	)
}

// renderMatrix is a kept comparison: a row per model, a column per input
// set, each cell its verdict, fidelity, cost and latency; then what each
// set's pairs of models found, and Save.
func (c *compareTab) renderMatrix(k store.Comparison) app.UI {
	head := []app.UI{app.Th().Scope("col").Text("Model")}
	for j := range k.Inputs {
		head = append(head, app.Th().Scope("col").Class("compare-set-head").Text("Input set "+strconv.Itoa(j+1)))
	}
	rows := make([]app.UI, len(k.Models))
	for i, m := range k.Models {
		cells := []app.UI{app.Th().Scope("row").Body(app.Code().Class("compare-model").Text(m))}
		for j := range k.Inputs {
			cell, _ := k.Cell(i, j)
			cells = append(cells, renderCell(cell, len(c.Bundle.Trace.Edges)))
		}
		rows[i] = app.Tr().Body(cells...)
	}
	sets := make([]app.UI, 0, 2*len(k.Inputs))
	for j, in := range k.Inputs {
		sets = append(sets, app.Dt().Text("Input set "+strconv.Itoa(j+1)), app.Dd().Class("compare-set-values").Text(inputText(in)))
	}
	var summary []app.UI
	for j, lines := range k.Summary {
		for _, l := range lines {
			if len(k.Summary) > 1 {
				l = "Input set " + strconv.Itoa(j+1) + ": " + l
			}
			summary = append(summary, app.Li().Text(l))
		}
	}
	when := k.CreatedAt
	if t, err := time.Parse(time.RFC3339Nano, k.CreatedAt); err == nil {
		when = t.Local().Format("2 Jan 2006 15:04")
	}
	canSave := k.SavedVersion == 0 && c.Newest && k.BundleHash == c.Bundle.ContentHash
	return app.Div().ID("compare-result").Body(
		app.H3().Text("Results of v"+strconv.Itoa(k.SkillVersion)+": "+words.Count(len(k.Models), "model")+" × "+words.Count(len(k.Inputs), "input set")),
		app.P().Class("muted").ID("compare-kept").Body(
			app.Text("Compared "+when+"; kept with the skill. "),
			app.If(k.SavedVersion > 0, func() app.UI {
				return app.Strong().ID("compare-saved-as").Text("Saved as v" + strconv.Itoa(k.SavedVersion) + ".")
			}).Else(func() app.UI { return app.Text("Not saved as a version.") }),
		),
		app.If(c.keepErr != nil, func() app.UI {
			return app.P().Class("status status-error").Role("alert").Text(errText(c.keepErr))
		}),
		app.Dl().Class("facts compare-inputs").Body(sets...),
		app.Div().Class("table-scroll").Body(
			app.Table().Class("list compare-matrix").ID("compare-matrix").Body(
				app.Caption().Text("Rows are models, columns input sets; each cell is one replay, proved and verified."),
				app.THead().Body(app.Tr().Body(head...)),
				app.TBody().Body(rows...),
			),
		),
		app.H3().Text("Divergence"),
		app.Ul().ID("compare-summary").Body(summary...),
		app.If(canSave, func() app.UI {
			return app.Div().Class("field-row").Body(
				app.Button().Type("button").ID("compare-save").Disabled(c.saving).
					Text("Save as new version v"+strconv.Itoa(k.SkillVersion+1)).OnClick(c.onSave),
				app.Span().Class("muted").ID("compare-save-note").Text("One version, the next after v"+strconv.Itoa(k.SkillVersion)+", carrying every cell's replay."),
			)
		}),
		app.If(c.saveErr != nil, func() app.UI {
			return app.Div().Class("status status-error").Role("alert").Body(
				app.P().Text("Not saved; the library is as it was."),
				app.P().Class("error-text").Text(errText(c.saveErr)),
			)
		}),
	)
}

// renderCell is one cell of the matrix: the replay's verdict, fidelity
// (of the recorded edges), cost and latency, or why it has none.
func renderCell(cell store.ComparisonCell, recorded int) app.UI {
	td := app.Td().Class("compare-cell").DataSet("model", cell.Model).DataSet("set", strconv.Itoa(cell.Input+1))
	cost := app.Span().Class("compare-cost").Text("cost " + words.Cost(cell.CostUSD, cell.CostKnown))
	if cell.Error != "" {
		return td.Body(
			app.Span().Class("compare-verdict").Body(app.Span().Class("verdict verdict-fail").Text("no result")),
			app.P().Class("error-text").Text(cell.Error),
			app.P().Class("compare-facts").Body(cost),
		)
	}
	return td.Body(
		app.Span().Class("compare-verdict").Body(verdictBadge(cell.Verdict)),
		app.P().Class("compare-status").Title(cell.Status).DataSet("value", cell.Status).Text(words.Status(cell.Status, cell.HaltedAtEdge)),
		app.P().Class("compare-facts").Body(
			app.Span().Class("compare-fidelity").Text("fidelity "+words.Fidelity(cell.Fidelity, cell.EdgesCommitted, cell.EdgesAttempted, recorded)), app.Text(" "),
			levelBadge(cell.FidelityLevel),
		),
		app.P().Class("compare-facts").Body(
			cost, app.Text(" · "),
			app.Span().Class("compare-latency").DataSet("ms", strconv.FormatInt(cell.LatencyMS, 10)).Text(strconv.FormatInt(cell.LatencyMS, 10)+" ms"),
		),
		app.P().Class("muted compare-model-used").Text("model used: "+cell.ModelUsed+", "+words.Count(cell.ModelCalls, "model call")),
	)
}

// inputText is an input set as one line of name = value pairs.
func inputText(in map[string]any) string {
	if len(in) == 0 {
		return "(no inputs)"
	}
	s, err := words.CompactJSON(in)
	if err != nil {
		return "(cannot be shown: " + err.Error() + ")"
	}
	return s
}
