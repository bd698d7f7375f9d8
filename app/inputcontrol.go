package main

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/skill"
)

// inputLabel names a manifest input with its type and whether it is
// required: "url (url, required)".
func inputLabel(in skill.InputSpec) string {
	label := in.Name + " (" + in.Type
	if in.Required {
		label += ", required"
	}
	return label + ")"
}

// inputControl is the form control for a value of manifest input in,
// element id, holding raw: a choice for a boolean, a text area of rows
// rows for JSON, else a text field with the keyboard for its type. When
// msg says what is wrong with it, the control is marked invalid and
// described by its error (element id+"-error"). on takes every edit.
func inputControl(id string, in skill.InputSpec, raw, msg string, rows int, on app.EventHandler) app.UI {
	errID := id + "-error"
	switch in.Type {
	case "boolean":
		sel := app.Select().ID(id).Name(in.Name).OnChange(on).Body(
			app.Option().Value("true").Selected(raw == "true").Text("true"),
			app.Option().Value("false").Selected(raw != "true").Text("false"),
		)
		if msg != "" {
			sel = sel.Aria("invalid", "true").Aria("describedby", errID)
		}
		return sel
	case "json":
		ta := app.Textarea().ID(id).Name(in.Name).Rows(rows).Attr("spellcheck", "false").Text(raw).OnInput(on)
		if msg != "" {
			ta = ta.Aria("invalid", "true").Aria("describedby", errID)
		}
		return ta
	}
	el := app.Input().Type("text").ID(id).Name(in.Name).Value(raw).Attr("spellcheck", "false").OnInput(on)
	switch in.Type {
	case "number":
		el = el.Attr("inputmode", "decimal")
	case "url":
		el = el.Attr("inputmode", "url")
	}
	if msg != "" {
		el = el.Aria("invalid", "true").Aria("describedby", errID)
	}
	return el
}
