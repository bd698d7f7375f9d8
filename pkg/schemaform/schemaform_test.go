package schemaform_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"workbench/pkg/schemaform"
)

// A case types into a form and checks what comes out. Ops are small
// commands, one per string:
//
//	set PTR TEXT     Set(PTR, TEXT) (TEXT may be empty: clears the field)
//	null PTR         SetNull(PTR, true)
//	add PTR          AddItem(PTR)
//	rm PTR           RemoveItem(PTR)
//	choose PTR I     Choose(PTR, I)
//	entry PTR KEY    AddEntry(PTR), then SetKey on it
//	expand PTR       Expand(PTR)
type tcase struct {
	name string
	ops  []string
	want string            // the exact JSON value; "" when errs are expected
	errs map[string]string // pointer → keyword of the expected errors
}

// cases are keyed by schema file, corpus/ or hard/. Every schema file
// must have cases (TestEveryFileHasCases).
var cases = map[string][]tcase{
	// server-everything
	"corpus/everything.echo.json": {
		{name: "message", ops: []string{"set /message héllo"}, want: `{"message":"héllo"}`},
		{name: "missing", errs: map[string]string{"/message": "required"}},
	},
	"corpus/everything.get-annotated-message.json": {
		{name: "defaults kept", ops: []string{"set /messageType success"}, want: `{"messageType":"success","includeImage":false}`},
		{name: "bool", ops: []string{"set /messageType debug", "set /includeImage true"}, want: `{"messageType":"debug","includeImage":true}`},
		{name: "not a choice", ops: []string{"set /messageType warn"}, errs: map[string]string{"/messageType": "enum"}},
	},
	"corpus/everything.get-env.json":        {{name: "empty", want: `{}`}},
	"corpus/everything.get-roots-list.json": {{name: "empty", want: `{}`}},
	"corpus/everything.get-tiny-image.json": {{name: "empty", want: `{}`}},
	"corpus/everything.get-resource-links.json": {
		{name: "default", want: `{"count":3}`},
		{name: "cleared default", ops: []string{"set /count "}, want: `{}`},
		{name: "typed", ops: []string{"set /count 10"}, want: `{"count":10}`},
		{name: "above maximum", ops: []string{"set /count 11"}, errs: map[string]string{"/count": "maximum"}},
		{name: "not a number", ops: []string{"set /count three"}, errs: map[string]string{"/count": "type"}},
	},
	"corpus/everything.get-resource-reference.json": {
		{name: "defaults", want: `{"resourceType":"Text","resourceId":1}`},
		{name: "typed", ops: []string{"set /resourceType Blob", "set /resourceId 2"}, want: `{"resourceType":"Blob","resourceId":2}`},
	},
	"corpus/everything.get-structured-content.json": {
		{name: "city", ops: []string{"set /location Los Angeles"}, want: `{"location":"Los Angeles"}`},
		{name: "unknown city", ops: []string{"set /location Atlantis"}, errs: map[string]string{"/location": "enum"}},
	},
	"corpus/everything.get-sum.json": {
		{name: "numbers", ops: []string{"set /a 1.5", "set /b -2"}, want: `{"a":1.5,"b":-2}`},
		{name: "leading plus and dot", ops: []string{"set /a +3", "set /b .5"}, want: `{"a":3,"b":0.5}`},
		{name: "bad and missing", ops: []string{"set /a x"}, errs: map[string]string{"/a": "type", "/b": "required"}},
	},
	"corpus/everything.gzip-file-as-resource.json": {
		{name: "defaults", want: `{"name":"README.md.gz","data":"https://raw.githubusercontent.com/modelcontextprotocol/servers/refs/heads/main/README.md","outputType":"resourceLink"}`},
		{name: "typed", ops: []string{"set /name a.gz", "set /data data:text/plain,hi", "set /outputType resource"},
			want: `{"name":"a.gz","data":"data:text/plain,hi","outputType":"resource"}`},
		{name: "not a uri", ops: []string{"set /data README"}, errs: map[string]string{"/data": "format"}},
	},
	"corpus/everything.simulate-research-query.json": {
		{name: "topic", ops: []string{"set /topic tides", "set /ambiguous true"}, want: `{"topic":"tides","ambiguous":true}`},
		{name: "bad bool", ops: []string{"set /topic tides", "set /ambiguous yes"}, errs: map[string]string{"/ambiguous": "type"}},
	},
	"corpus/everything.toggle-simulated-logging.json":          {{name: "empty", want: `{}`}},
	"corpus/everything.toggle-subscriber-updates.json":         {{name: "empty", want: `{}`}},
	"corpus/everything.trigger-elicitation-request.json":       {{name: "empty", want: `{}`}},
	"corpus/everything.trigger-elicitation-request-async.json": {{name: "empty", want: `{}`}},
	"corpus/everything.trigger-long-running-operation.json": {
		{name: "defaults", want: `{"duration":10,"steps":5}`},
		{name: "one cleared", ops: []string{"set /duration ", "set /steps 2"}, want: `{"steps":2}`},
	},
	"corpus/everything.trigger-sampling-request.json": {
		{name: "prompt", ops: []string{"set /prompt Say hi"}, want: `{"prompt":"Say hi","maxTokens":100}`},
		{name: "typo in number", ops: []string{"set /prompt x", "set /maxTokens 1O0"}, errs: map[string]string{"/maxTokens": "type"}},
	},
	"corpus/everything.trigger-sampling-request-async.json": {
		{name: "prompt", ops: []string{"set /prompt Say hi", "set /maxTokens 5"}, want: `{"prompt":"Say hi","maxTokens":5}`},
	},
	"corpus/everything.trigger-url-elicitation.json": {
		{name: "url", ops: []string{"set /url https://example.com/auth", "set /elicitationId e-1"},
			want: `{"url":"https://example.com/auth","message":"Please open the link to complete this action.","elicitationId":"e-1","errorPath":false}`},
		{name: "not a uri", ops: []string{"set /url not a url"}, errs: map[string]string{"/url": "format"}},
	},

	// Playwright MCP
	"corpus/playwright.browser_annotate.json":           {{name: "empty", want: `{}`}},
	"corpus/playwright.browser_close.json":              {{name: "empty", want: `{}`}},
	"corpus/playwright.browser_navigate_back.json":      {{name: "empty", want: `{}`}},
	"corpus/playwright.browser_start_recording.json":    {{name: "empty", want: `{}`}},
	"corpus/playwright.browser_start_tracing.json":      {{name: "empty", want: `{}`}},
	"corpus/playwright.browser_stop_recording.json":     {{name: "empty", want: `{}`}},
	"corpus/playwright.browser_stop_tracing.json":       {{name: "empty", want: `{}`}},
	"corpus/playwright.browser_stop_video.json":         {{name: "empty", want: `{}`}},
	"corpus/playwright.browser_video_hide_actions.json": {{name: "empty", want: `{}`}},
	"corpus/playwright.browser_click.json": {
		{name: "full", ops: []string{"set /element Buy button", "set /target e12", "set /doubleClick true", "set /button right",
			"add /modifiers", "set /modifiers/0 Shift", "add /modifiers", "set /modifiers/1 Alt"},
			want: `{"element":"Buy button","target":"e12","doubleClick":true,"button":"right","modifiers":["Shift","Alt"]}`},
		{name: "item removed", ops: []string{"set /target e1", "add /modifiers", "add /modifiers", "set /modifiers/0 Meta",
			"set /modifiers/1 Control", "rm /modifiers/0"}, want: `{"target":"e1","modifiers":["Control"]}`},
		{name: "no target", ops: []string{"set /button left"}, errs: map[string]string{"/target": "required"}},
		{name: "bad modifier", ops: []string{"set /target e1", "add /modifiers", "set /modifiers/0 Hyper"}, errs: map[string]string{"/modifiers/0": "enum"}},
	},
	"corpus/playwright.browser_console_messages.json": {
		{name: "default level", want: `{"level":"info"}`},
		{name: "typed", ops: []string{"set /level error", "set /all true", "set /filename log.txt"}, want: `{"level":"error","all":true,"filename":"log.txt"}`},
		{name: "level cleared", ops: []string{"set /level "}, errs: map[string]string{"/level": "required"}},
	},
	"corpus/playwright.browser_drag.json": {
		{name: "targets", ops: []string{"set /startTarget e1", "set /endTarget e2"}, want: `{"startTarget":"e1","endTarget":"e2"}`},
		{name: "one missing", ops: []string{"set /startTarget e1"}, errs: map[string]string{"/endTarget": "required"}},
	},
	"corpus/playwright.browser_drop.json": {
		{name: "data entries", ops: []string{"set /target e3", "entry /data text/plain", "set /data/text~1plain hello",
			"add /paths", "set /paths/0 /tmp/a.txt"},
			want: `{"target":"e3","paths":["/tmp/a.txt"],"data":{"text/plain":"hello"}}`},
		{name: "empty item", ops: []string{"set /target e3", "add /paths"}, errs: map[string]string{"/paths/0": "item"}},
	},
	"corpus/playwright.browser_emulate_media.json": {
		{name: "null and value", ops: []string{"null /colorScheme", "set /reducedMotion reduce", "set /media print"},
			want: `{"colorScheme":null,"reducedMotion":"reduce","media":"print"}`},
		{name: "bad choice", ops: []string{"set /contrast loud"}, errs: map[string]string{"/contrast": "enum"}},
	},
	"corpus/playwright.browser_evaluate.json": {
		{name: "function", ops: []string{"set /function () => document.title"}, want: `{"function":"() => document.title"}`},
		{name: "missing", ops: []string{"set /target e1"}, errs: map[string]string{"/function": "required"}},
	},
	"corpus/playwright.browser_file_upload.json": {
		{name: "paths", ops: []string{"add /paths", "set /paths/0 /tmp/f.pdf"}, want: `{"paths":["/tmp/f.pdf"]}`},
		{name: "none", want: `{}`},
	},
	"corpus/playwright.browser_fill_form.json": {
		{name: "two fields", ops: []string{
			"add /fields", "set /fields/0/target e5", "set /fields/0/name Email", "set /fields/0/type textbox", "set /fields/0/value a@b.example",
			"add /fields", "set /fields/1/target e6", "set /fields/1/name Agree", "set /fields/1/type checkbox", "set /fields/1/value true"},
			want: `{"fields":[{"target":"e5","name":"Email","type":"textbox","value":"a@b.example"},{"target":"e6","name":"Agree","type":"checkbox","value":"true"}]}`},
		{name: "no fields: a required array goes in empty", want: `{"fields":[]}`},
		{name: "item incomplete", ops: []string{"add /fields", "set /fields/0/target e5", "set /fields/0/type textbox", "set /fields/0/value v"},
			errs: map[string]string{"/fields/0/name": "required"}},
	},
	"corpus/playwright.browser_find.json": {
		{name: "text", ops: []string{"set /text Checkout"}, want: `{"text":"Checkout"}`},
	},
	"corpus/playwright.browser_handle_dialog.json": {
		{name: "false is a value", ops: []string{"set /accept false"}, want: `{"accept":false}`},
		{name: "prompt", ops: []string{"set /accept true", "set /promptText yes"}, want: `{"accept":true,"promptText":"yes"}`},
		{name: "not a boolean", ops: []string{"set /accept maybe"}, errs: map[string]string{"/accept": "type"}},
	},
	"corpus/playwright.browser_hide_highlight.json": {
		{name: "empty", want: `{}`},
		{name: "target", ops: []string{"set /target e4"}, want: `{"target":"e4"}`},
	},
	"corpus/playwright.browser_highlight.json": {
		{name: "style", ops: []string{"set /target e4", "set /style outline: 2px dashed red"}, want: `{"target":"e4","style":"outline: 2px dashed red"}`},
	},
	"corpus/playwright.browser_hover.json": {
		{name: "target", ops: []string{"set /target e7"}, want: `{"target":"e7"}`},
	},
	"corpus/playwright.browser_mouse_click_xy.json": {
		{name: "click", ops: []string{"set /x 10", "set /y 20.5", "set /clickCount 2", "set /button middle"}, want: `{"x":10,"y":20.5,"button":"middle","clickCount":2}`},
		{name: "x not a number", ops: []string{"set /x ten", "set /y 1"}, errs: map[string]string{"/x": "type"}},
	},
	"corpus/playwright.browser_mouse_down.json": {
		{name: "button", ops: []string{"set /button middle"}, want: `{"button":"middle"}`},
	},
	"corpus/playwright.browser_mouse_up.json": {{name: "empty", want: `{}`}},
	"corpus/playwright.browser_mouse_drag_xy.json": {
		{name: "drag", ops: []string{"set /startX 0", "set /startY 0", "set /endX 1e2", "set /endY -5"}, want: `{"startX":0,"startY":0,"endX":1e2,"endY":-5}`},
	},
	"corpus/playwright.browser_mouse_move_xy.json": {
		{name: "move", ops: []string{"set /x 3", "set /y 4"}, want: `{"x":3,"y":4}`},
	},
	"corpus/playwright.browser_mouse_wheel.json": {
		{name: "defaults fill required", want: `{"deltaX":0,"deltaY":0}`},
		{name: "cleared required", ops: []string{"set /deltaY "}, errs: map[string]string{"/deltaY": "required"}},
	},
	"corpus/playwright.browser_navigate.json": {
		{name: "url", ops: []string{"set /url https://example.com/docs"}, want: `{"url":"https://example.com/docs"}`},
	},
	"corpus/playwright.browser_network_request.json": {
		{name: "index", ops: []string{"set /index 3", "set /part response-body"}, want: `{"index":3,"part":"response-body"}`},
		{name: "integer written whole", ops: []string{"set /index 2.0"}, want: `{"index":2}`},
		{name: "below minimum", ops: []string{"set /index 0"}, errs: map[string]string{"/index": "minimum"}},
		{name: "fraction", ops: []string{"set /index 1.5"}, errs: map[string]string{"/index": "type"}},
	},
	"corpus/playwright.browser_network_requests.json": {
		{name: "default", want: `{"static":false}`},
		{name: "filter", ops: []string{"set /filter /api/.*", "set /static true"}, want: `{"static":true,"filter":"/api/.*"}`},
	},
	"corpus/playwright.browser_pdf_save.json": {
		{name: "filename", ops: []string{"set /filename out.pdf"}, want: `{"filename":"out.pdf"}`},
	},
	"corpus/playwright.browser_press_key.json": {
		{name: "key", ops: []string{"set /key ArrowLeft"}, want: `{"key":"ArrowLeft"}`},
	},
	"corpus/playwright.browser_resize.json": {
		{name: "size", ops: []string{"set /width 800", "set /height 600"}, want: `{"width":800,"height":600}`},
	},
	"corpus/playwright.browser_resume.json": {
		{name: "step", ops: []string{"set /step true", "set /location a.spec.ts:4"}, want: `{"step":true,"location":"a.spec.ts:4"}`},
	},
	"corpus/playwright.browser_run_code_unsafe.json": {
		{name: "code", ops: []string{"set /code async (page) => page.title()"}, want: `{"code":"async (page) => page.title()"}`},
	},
	"corpus/playwright.browser_select_option.json": {
		{name: "values", ops: []string{"set /target e9", "add /values", "set /values/0 a", "add /values", "set /values/1 b"}, want: `{"target":"e9","values":["a","b"]}`},
		{name: "values required", ops: []string{"set /target e9"}, want: `{"target":"e9","values":[]}`},
	},
	"corpus/playwright.browser_snapshot.json": {
		{name: "depth", ops: []string{"set /depth 3", "set /boxes false"}, want: `{"depth":3,"boxes":false}`},
	},
	"corpus/playwright.browser_start_video.json": {
		{name: "nested object", ops: []string{"set /size/width 640", "set /size/height 480", "set /fps 30"}, want: `{"size":{"width":640,"height":480},"fps":30}`},
		{name: "nested required", ops: []string{"set /size/width 640"}, errs: map[string]string{"/size/height": "required"}},
		{name: "optional object left out", ops: []string{"set /filename v.webm"}, want: `{"filename":"v.webm"}`},
	},
	"corpus/playwright.browser_tabs.json": {
		{name: "new", ops: []string{"set /action new", "set /url https://a.example"}, want: `{"action":"new","url":"https://a.example"}`},
		{name: "no action", errs: map[string]string{"/action": "required"}},
	},
	"corpus/playwright.browser_take_screenshot.json": {
		{name: "default scale", want: `{"scale":"css"}`},
		{name: "typed", ops: []string{"set /type jpeg", "set /fullPage true", "set /scale device"}, want: `{"type":"jpeg","fullPage":true,"scale":"device"}`},
	},
	"corpus/playwright.browser_type.json": {
		{name: "type", ops: []string{"set /target e1", "set /text hi there", "set /submit true"}, want: `{"target":"e1","text":"hi there","submit":true}`},
	},
	"corpus/playwright.browser_video_chapter.json": {
		{name: "chapter", ops: []string{"set /title Intro", "set /duration 1500"}, want: `{"title":"Intro","duration":1500}`},
	},
	"corpus/playwright.browser_video_show_actions.json": {
		{name: "style", ops: []string{"set /position top", "set /cursor none", "set /style/title font-size: 16px"},
			want: `{"position":"top","cursor":"none","style":{"title":"font-size: 16px"}}`},
	},
	"corpus/playwright.browser_wait_for.json": {
		{name: "time", ops: []string{"set /time 2.5"}, want: `{"time":2.5}`},
	},

	// hand-written hard cases
	"hard/nested_arrays.json": {
		{name: "groups of members", ops: []string{
			"add /groups", "set /groups/0/name ops", "add /groups/0/tags", "set /groups/0/tags/0 x",
			"add /groups/0/members", "set /groups/0/members/0/email a@b.example", "set /groups/0/members/0/age 30",
			"add /groups/0/members", "set /groups/0/members/1/email c@d.example",
			"add /groups", "set /groups/1/name dev"},
			want: `{"groups":[{"name":"ops","tags":["x"],"members":[{"email":"a@b.example","age":30},{"email":"c@d.example"}]},{"name":"dev"}]}`},
		{name: "errors deep", ops: []string{"add /groups", "set /groups/0/name ops", "add /groups/0/members",
			"set /groups/0/members/0/email nope", "set /groups/0/members/0/age -1"},
			errs: map[string]string{"/groups/0/members/0/email": "format", "/groups/0/members/0/age": "minimum"}},
		{name: "min items", errs: map[string]string{"/groups": "minItems"}},
		{name: "removed group renumbers", ops: []string{"add /groups", "add /groups", "set /groups/0/name a", "set /groups/1/name b",
			"add /groups/1/members", "set /groups/1/members/0/email e@f.example", "rm /groups/0", "set /groups/0/members/0/age 5"},
			want: `{"groups":[{"name":"b","members":[{"email":"e@f.example","age":5}]}]}`},
		{name: "duplicate tags", ops: []string{"add /groups", "set /groups/0/name a", "add /groups/0/tags", "add /groups/0/tags",
			"set /groups/0/tags/0 x", "set /groups/0/tags/1 x"}, errs: map[string]string{"/groups/0/tags": "uniqueItems"}},
	},
	"hard/recursive_ref.json": {
		{name: "tree", ops: []string{"set /tree/label root", "add /tree/children", "set /tree/children/0/label a",
			"add /tree/children/0/children", "set /tree/children/0/children/0/label a1",
			"expand /tree/next", "set /tree/next/label n"},
			want: `{"tree":{"label":"root","children":[{"label":"a","children":[{"label":"a1"}]}],"next":{"label":"n"}}}`},
		{name: "root recursion", ops: []string{"set /tree/label t", "expand /again", "set /again/tree/label inner"},
			want: `{"tree":{"label":"t"},"again":{"tree":{"label":"inner"}}}`},
		{name: "label required", ops: []string{"add /tree/children"}, errs: map[string]string{"/tree/label": "required", "/tree/children/0/label": "required"}},
	},
	"hard/recursive_nullable.json": {
		{name: "default null next", ops: []string{"set /list/value 1"}, want: `{"list":{"value":1,"next":null}}`},
		{name: "linked list", ops: []string{"set /list/value 1", "expand /list/next", "set /list/next/value 2"},
			want: `{"list":{"value":1,"next":{"value":2,"next":null}}}`},
		{name: "expression tree", ops: []string{"set /list/value 0", "choose /expr 1", "set /expr/op +", "add /expr/args",
			"set /expr/args/0 2", "add /expr/args", "choose /expr/args/1 1", "set /expr/args/1/op *", "add /expr/args/1/args", "set /expr/args/1/args/0 3"},
			want: `{"list":{"value":0,"next":null},"expr":{"op":"+","args":[2,{"op":"*","args":[3]}]}}`},
		{name: "ref chain", ops: []string{"set /list/value 0", "set /chain/x a", "expand /chain/again", "set /chain/again/x b"},
			want: `{"list":{"value":0,"next":null},"chain":{"x":"a","again":{"x":"b"}}}`},
		{name: "variant of itself", ops: []string{"set /list/value 0", "choose /self 1", "set /self s"},
			want: `{"list":{"value":0,"next":null},"self":"s"}`},
	},
	"hard/nullable.json": {
		{name: "nulls and values", ops: []string{"null /a", "set /b 2", "set /c/x 1"}, want: `{"a":null,"b":2,"c":{"x":1},"d":null}`},
		{name: "values", ops: []string{"set /a abc", "null /b", "set /d dark"}, want: `{"a":"abc","b":null,"d":"dark"}`},
		{name: "branch errors only", ops: []string{"set /a toolong", "set /b 0"}, errs: map[string]string{"/a": "maxLength", "/b": "minimum"}},
	},
	"hard/oneof_discriminated.json": {
		{name: "first variant", ops: []string{"set /shape/r 2"}, want: `{"shape":{"kind":"circle","r":2}}`},
		{name: "second variant", ops: []string{"choose /shape 1", "set /shape/w 1", "set /shape/h 2"}, want: `{"shape":{"kind":"rect","w":1,"h":2}}`},
		{name: "typed values do not carry over", ops: []string{"set /shape/r 2", "choose /shape 1", "choose /shape 0", "set /shape/r 3"},
			want: `{"shape":{"kind":"circle","r":3}}`},
		{name: "chosen variant's error", ops: []string{"set /shape/r 0"}, errs: map[string]string{"/shape/r": "exclusiveMinimum"}},
		{name: "optional variant", ops: []string{"set /shape/r 1", "choose /pick 1", "set /pick 7"}, want: `{"shape":{"kind":"circle","r":1},"pick":7}`},
		{name: "date variant", ops: []string{"set /shape/r 1", "choose /pick 0", "set /pick 2026-13-01"}, errs: map[string]string{"/pick": "format"}},
		{name: "null variant", ops: []string{"set /shape/r 1", "choose /pick 2"}, want: `{"shape":{"kind":"circle","r":1},"pick":null}`},
	},
	"hard/enum_numbers.json": {
		{name: "numbers", ops: []string{"set /level 3.5", "set /mixed true"}, want: `{"level":3.5,"mixed":true}`},
		{name: "number choice", ops: []string{"set /mixed 2"}, want: `{"mixed":2}`},
		{name: "null member", ops: []string{"null /mixed"}, want: `{"mixed":null}`},
		{name: "not a choice", ops: []string{"set /level 4"}, errs: map[string]string{"/level": "enum"}},
	},
	"hard/bounds_formats.json": {
		{name: "all valid", ops: []string{"set /ratio 0.5", "set /step 10", "set /code ABC", "set /name Bob", "set /email a@b.example",
			"set /when 2026-11-30T12:00:00Z", "set /day 2026-11-30", "set /site https://x.example/"},
			want: `{"ratio":0.5,"step":10,"code":"ABC","name":"Bob","email":"a@b.example","when":"2026-11-30T12:00:00Z","day":"2026-11-30","site":"https://x.example/"}`},
		{name: "all invalid", ops: []string{"set /ratio 1", "set /step 7", "set /code abc", "set /name B", "set /email nope",
			"set /when tomorrow", "set /day 30/11/2026", "set /site x"},
			errs: map[string]string{"/ratio": "exclusiveMaximum", "/step": "multipleOf", "/code": "pattern", "/name": "minLength",
				"/email": "format", "/when": "format", "/day": "format", "/site": "format"}},
		{name: "exclusive minimum", ops: []string{"set /ratio 0"}, errs: map[string]string{"/ratio": "exclusiveMinimum"}},
		{name: "max length", ops: []string{"set /name Robert"}, errs: map[string]string{"/name": "maxLength"}},
	},
	"hard/additional.json": {
		{name: "entries", ops: []string{"set /name n", "entry /labels a/b", "set /labels/a~1b 3", "entry /meta x", `set /meta/x {"y":[1]}`},
			want: `{"name":"n","labels":{"a/b":3},"meta":{"x":{"y":[1]}}}`},
		{name: "typed entry", ops: []string{"entry /labels a", "set /labels/a z"}, errs: map[string]string{"/labels/a": "type"}},
		{name: "bad json entry", ops: []string{"entry /meta x", "set /meta/x {oops"}, errs: map[string]string{"/meta/x": "json"}},
	},
	"hard/fallback.json": {
		{name: "raw values", ops: []string{`set /cond {"a":1,"b":2}`, `set /pp {"x-a":"s"}`, "set /neg 5"},
			want: `{"cond":{"a":1,"b":2},"pp":{"x-a":"s"},"neg":5}`},
		{name: "if/then", ops: []string{`set /cond {"a":1}`}, errs: map[string]string{"/cond/b": "required"}},
		{name: "not", ops: []string{`set /neg "s"`}, errs: map[string]string{"/neg": "not"}},
		{name: "broken json", ops: []string{`set /pp {"x-a"`}, errs: map[string]string{"/pp": "json"}},
	},
	"hard/allof_defaults.json": {
		{name: "default alone does not add an object", ops: []string{"set /b true"}, want: `{"a":"x","b":true}`},
		{name: "object with its default", ops: []string{"set /b false", "set /opt/e hi"}, want: `{"a":"x","b":false,"opt":{"d":7,"e":"hi"}}`},
		{name: "cleared default", ops: []string{"set /b true", "set /a "}, want: `{"b":true}`},
		{name: "required from allOf", errs: map[string]string{"/b": "required"}},
	},
	"hard/context_names.json": {
		{name: "typed", ops: []string{"set /skill_id s1", "set /edge_index 2"}, want: `{"skill_id":"s1","edge_index":2}`},
		{name: "ref bounds", ops: []string{"set /skill_id "}, errs: map[string]string{"/skill_id": "required"}},
	},
	"hard/type_union.json": {
		{name: "string", ops: []string{"set /v hello"}, want: `{"v":"hello"}`},
		{name: "number", ops: []string{"choose /v 1", "set /v 3"}, want: `{"v":3}`},
		{name: "any json", ops: []string{"set /v a", `set /anything [1,{"b":null}]`}, want: `{"v":"a","anything":[1,{"b":null}]}`},
	},
}

func compileFile(t *testing.T, file string) *schemaform.Form {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	f, err := schemaform.Compile(data)
	if err != nil {
		t.Fatalf("Compile(%s): %v", file, err)
	}
	return f
}

func run(t *testing.T, f *schemaform.Form, ops []string) {
	t.Helper()
	for _, op := range ops {
		verb, rest, _ := strings.Cut(op, " ")
		ptr, arg, _ := strings.Cut(rest, " ")
		var err error
		switch verb {
		case "set":
			err = f.Set(ptr, arg)
		case "null":
			err = f.SetNull(ptr, true)
		case "add":
			_, err = f.AddItem(ptr)
		case "rm":
			err = f.RemoveItem(ptr)
		case "choose":
			i, _ := strconv.Atoi(arg)
			err = f.Choose(ptr, i)
		case "entry":
			if err = f.AddEntry(ptr); err == nil {
				err = f.SetKey(ptr, len(f.Field(ptr).Entries)-1, arg)
			}
		case "expand":
			err = f.Expand(ptr)
		default:
			t.Fatalf("unknown op %q", op)
		}
		if err != nil {
			t.Fatalf("%s: %v", op, err)
		}
	}
}

func TestCases(t *testing.T) {
	for file, cs := range cases {
		for _, c := range cs {
			t.Run(file+"/"+c.name, func(t *testing.T) {
				f := compileFile(t, file)
				run(t, f, c.ops)
				got, errs := f.JSON()
				if c.want != "" {
					if len(errs) > 0 {
						t.Fatalf("errors %v; value %s", errs, got)
					}
					if !sameJSON(t, got, c.want) {
						t.Fatalf("value\n got %s\nwant %s", got, c.want)
					}
					roundTrip(t, file, got)
					return
				}
				gotErrs := map[string]string{}
				for _, e := range errs {
					if _, dup := gotErrs[e.Path]; !dup {
						gotErrs[e.Path] = e.Keyword
					}
					if fl := nearest(f, e.Path); fl.Error == "" {
						t.Errorf("error %v is not on its field %s", e, fl.Path)
					}
				}
				if !reflect.DeepEqual(gotErrs, c.errs) {
					t.Fatalf("errors\n got %v\nwant %v\n(%v; value %s)", gotErrs, c.errs, errs, got)
				}
			})
		}
	}
}

func nearest(f *schemaform.Form, ptr string) *schemaform.Field {
	for {
		if fl := f.Field(ptr); fl != nil {
			return fl
		}
		i := strings.LastIndexByte(ptr, '/')
		if i < 0 {
			return f.Root
		}
		ptr = ptr[:i]
	}
}

// roundTrip loads a value into a fresh form (as resuming an approved
// action does) and checks the form gives the same value back, and that
// raw mode gives it back too.
func roundTrip(t *testing.T, file string, v json.RawMessage) {
	t.Helper()
	f := compileFile(t, file)
	if err := f.Load(v); err != nil {
		t.Fatalf("Load(%s): %v", v, err)
	}
	got, errs := f.JSON()
	if len(errs) > 0 || !sameJSON(t, got, string(v)) {
		t.Fatalf("after Load: %s %v, want %s", got, errs, v)
	}
	if err := f.SetRawMode(true); err != nil {
		t.Fatal(err)
	}
	if err := f.SetRawMode(false); err != nil {
		t.Fatalf("back from raw mode: %v", err)
	}
	got, errs = f.JSON()
	if len(errs) > 0 || !sameJSON(t, got, string(v)) {
		t.Fatalf("after raw mode: %s %v, want %s", got, errs, v)
	}
}

func sameJSON(t *testing.T, got []byte, want string) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("got %s: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want %s: %v", want, err)
	}
	return reflect.DeepEqual(g, w)
}

func TestEveryFileHasCases(t *testing.T) {
	for _, dir := range []string{"corpus", "hard"} {
		files, _ := filepath.Glob(filepath.Join("testdata", dir, "*.json"))
		if dir == "corpus" && len(files) < 60 {
			t.Errorf("corpus has %d schemas; regenerate it with -update", len(files))
		}
		for _, file := range files {
			rel := dir + "/" + filepath.Base(file)
			if len(cases[rel]) == 0 {
				t.Errorf("%s has no cases", rel)
			}
		}
	}
	for file := range cases {
		if _, err := os.Stat(filepath.Join("testdata", file)); err != nil {
			t.Errorf("cases for a missing schema: %v", err)
		}
	}
}

func TestCorpusCompiles(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*", "*.json"))
	for _, file := range files {
		rel, _ := filepath.Rel("testdata", file)
		f := compileFile(t, rel)
		// Real tool schemas are all modelled by fields: no raw fallback.
		if strings.HasPrefix(rel, "corpus") {
			f.Walk(func(fl *schemaform.Field) bool {
				if fl.Widget == schemaform.WidgetJSON && !strings.Contains(rel, "drop") {
					t.Errorf("%s %s: raw JSON fallback: %s", rel, fl.Path, fl.Fallback)
				}
				return true
			})
		}
	}
}

func TestFieldModel(t *testing.T) {
	f := compileFile(t, "corpus/playwright.browser_click.json")
	var names []string
	f.Walk(func(fl *schemaform.Field) bool {
		if fl.Path != "" {
			names = append(names, fl.Name)
		}
		return true
	})
	// The tool's own order, not alphabetical.
	if want := []string{"element", "target", "doubleClick", "button", "modifiers"}; !slices.Equal(names, want) {
		t.Errorf("order %v, want %v", names, want)
	}
	target := f.Field("/target")
	if !target.Required || !target.Target || target.Widget != schemaform.WidgetText || target.Folded() {
		t.Errorf("target field %+v", target)
	}
	button := f.Field("/button")
	if button.Widget != schemaform.WidgetSelect || len(button.Options) != 3 || button.Options[1].Label != "right" || !button.Folded() {
		t.Errorf("button field %+v", button)
	}

	f = compileFile(t, "hard/oneof_discriminated.json")
	shape := f.Field("/shape")
	if shape.Widget == schemaform.WidgetVariant {
		t.Fatalf("Field returns the innermost field of a variant, got the variant")
	}
	var variant *schemaform.Field
	f.Walk(func(fl *schemaform.Field) bool {
		if fl.Path == "/shape" && fl.Widget == schemaform.WidgetVariant {
			variant = fl
		}
		return true
	})
	if variant == nil || !slices.Equal(variant.Variants, []string{"Circle", "kind: rect"}) || variant.Chosen != 0 {
		t.Errorf("variant %+v", variant)
	}
	if k := f.Field("/shape/kind"); k.Widget != schemaform.WidgetConst || k.Const != "circle" {
		t.Errorf("discriminator %+v", k)
	}

	f = compileFile(t, "hard/fallback.json")
	for ptr, why := range map[string]string{"/cond": "if/then/else", "/pp": "patternProperties", "/neg": "not"} {
		if fl := f.Field(ptr); fl.Widget != schemaform.WidgetJSON || !strings.Contains(fl.Fallback, why) {
			t.Errorf("%s: %s %q", ptr, fl.Widget, fl.Fallback)
		}
	}

	f = compileFile(t, "hard/recursive_ref.json")
	if next := f.Field("/tree/next"); !next.Collapsed || next.Description != "the node after this one" {
		t.Errorf("recursive ref %+v", next)
	}

	loop, err := schemaform.Compile(json.RawMessage(`{"properties": {"loop": {"$ref": "#/$defs/L"}},
		"$defs": {"L": {"$ref": "#/$defs/M"}, "M": {"$ref": "#/$defs/L"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if fl := loop.Field("/loop"); fl.Widget != schemaform.WidgetJSON || !strings.Contains(fl.Fallback, "lead back to themselves") {
		t.Errorf("ref loop %+v", fl)
	}

	f = compileFile(t, "hard/bounds_formats.json")
	r := f.Field("/ratio").Constraints
	if r.ExclusiveMinimum == nil || *r.ExclusiveMinimum != 0 || !slices.Equal(r.Hints(), []string{"> 0", "< 1"}) {
		t.Errorf("ratio constraints %+v %v", r, r.Hints())
	}
	if c := f.Field("/site").Constraints; c.Format != "uri" {
		t.Errorf("site %+v", c)
	}
	f = compileFile(t, "hard/nullable.json")
	if a := f.Field("/a"); !a.Nullable || a.Widget != schemaform.WidgetText || a.Description != "short text or null" {
		t.Errorf("nullable anyOf %+v", a)
	}
	if b := f.Field("/b"); !b.Nullable || b.Widget != schemaform.WidgetInteger {
		t.Errorf("nullable type array %+v", b)
	}
	if d := f.Field("/d"); !d.Null || d.Widget != schemaform.WidgetSelect {
		t.Errorf("null default %+v", d)
	}
}

func TestPrefill(t *testing.T) {
	f := compileFile(t, "hard/context_names.json")
	f.Set("/traceId", "typed-by-user")
	edge := 4
	filled := f.Prefill(schemaform.Context{
		SkillID: "checkout", TraceID: "t-1", EdgeIndex: &edge, URL: "https://shop.example/cart",
		ContentHash: "sha256:ab", SessionID: "s-9", Route: "/skills/checkout",
	})
	got := map[string]string{}
	for _, fl := range filled {
		got[fl.Path] = fl.Raw + " ← " + fl.Inferred.Source
	}
	want := map[string]string{
		"/skill_id":     "checkout ← current skill",
		"/edge_index":   "4 ← selected edge",
		"/url":          "https://shop.example/cart ← current page",
		"/content-hash": "sha256:ab ← bundle content hash",
	}
	// Not /traceId (the user typed there), not /run_id (a session id is
	// not a run id), not /id or /target (no name mapping).
	if !reflect.DeepEqual(got, want) {
		t.Errorf("prefilled %v\nwant %v", got, want)
	}
	for ptr := range want {
		if f.Field(ptr).Folded() {
			t.Errorf("%s: an inferred field is folded away", ptr)
		}
	}
	if !f.Field("/url").Target || !f.Field("/id").Target || f.Field("/id").Folded() || f.Field("/target").Folded() {
		t.Errorf("targets must never fold")
	}
	if !f.Field("/note").Folded() {
		t.Errorf("an empty optional field may fold")
	}
	v, errs := f.JSON()
	if len(errs) > 0 || !sameJSON(t, v, `{"skill_id":"checkout","traceId":"typed-by-user","edge_index":4,"url":"https://shop.example/cart","content-hash":"sha256:ab"}`) {
		t.Errorf("value %s %v", v, errs)
	}
	// Editable: the user's edit wins and clears the mark.
	f.Set("/skill_id", "other")
	if fl := f.Field("/skill_id"); fl.Inferred != nil || fl.Raw != "other" {
		t.Errorf("after edit %+v", fl)
	}
	// A second prefill does not overwrite the user's value.
	f.Prefill(schemaform.Context{SkillID: "checkout"})
	if fl := f.Field("/skill_id"); fl.Raw != "other" {
		t.Errorf("prefill overwrote the user: %q", fl.Raw)
	}

	// An edge index does not go into a field that cannot hold it.
	f = compileFile(t, "corpus/playwright.browser_network_request.json")
	if n := len(f.Prefill(schemaform.Context{SkillID: "x"})); n != 0 {
		t.Errorf("%d fields prefilled in a form without context names", n)
	}
}

// A skill id field offers the library's skills by name, whether it was
// prefilled or not; the value stays the id.
func TestPrefillOffersSkillsByName(t *testing.T) {
	f, err := schemaform.Compile(json.RawMessage(`{"type":"object","required":["skill_id"],"properties":{
		"skill_id":{"type":"string"},"skill_slug":{"type":"string"},"note":{"type":"string"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	skills := []schemaform.Choice{{Value: "019e-a", Label: "Check out a cart"}, {Value: "019e-b", Label: "File a bug"}}
	if filled := f.Prefill(schemaform.Context{Route: "/skills", Skills: skills}); len(filled) != 0 {
		t.Errorf("nothing is on screen, yet %d fields were filled", len(filled))
	}
	if got := f.Field("/skill_id").Choices; !reflect.DeepEqual(got, skills) {
		t.Errorf("skill_id offers %v", got)
	}
	if f.Field("/skill_slug").Choices != nil || f.Field("/note").Choices != nil {
		t.Error("a slug or another field offers skill ids")
	}
	if err := f.Set("/skill_id", "019e-b"); err != nil {
		t.Fatal(err)
	}
	if v, errs := f.JSON(); len(errs) > 0 || !sameJSON(t, v, `{"skill_id":"019e-b"}`) {
		t.Errorf("value %s %v", v, errs)
	}
}

// An error is the user's to see once they touched the field: Edited says
// when, for a field or a group holding one.
func TestEditedFields(t *testing.T) {
	f, err := schemaform.Compile(json.RawMessage(`{"type":"object","required":["a","list"],"properties":{
		"a":{"type":"string","minLength":3},"b":{"type":"string","default":"x"},
		"list":{"type":"array","items":{"type":"object","properties":{"c":{"type":"integer"}}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	f.Prefill(schemaform.Context{SkillID: "s"})
	if _, errs := f.Value(); len(errs) == 0 || f.Field("/a").Error == "" {
		t.Fatalf("an empty required field has no error: %v", errs)
	}
	for _, p := range []string{"", "/a", "/b", "/list"} {
		if f.Field(p).Edited() {
			t.Errorf("%q reads as edited before anything was typed", p)
		}
	}
	f.Set("/a", "no")
	item, _ := f.AddItem("/list")
	f.Set(item+"/c", "x")
	for _, p := range []string{"", "/a", "/list", item, item + "/c"} {
		if !f.Field(p).Edited() {
			t.Errorf("%q does not read as edited", p)
		}
	}
	if f.Field("/b").Edited() {
		t.Error("an untouched default reads as edited")
	}
}

func TestRawMode(t *testing.T) {
	f := compileFile(t, "hard/oneof_discriminated.json")
	f.Set("/shape/r", "2")
	if err := f.SetRawMode(true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(f.RawText(), `"kind": "circle"`) {
		t.Errorf("raw text %s", f.RawText())
	}
	f.SetRawText(`{"shape": {"kind": "rect", "w": 1, "h": 2}, "pick": "2026-01-02"}`)
	if err := f.SetRawMode(false); err != nil {
		t.Fatal(err)
	}
	if fl := f.Field("/shape/w"); fl == nil || fl.Raw != "1" {
		t.Errorf("back to fields: /shape/w %+v", fl)
	}
	v, errs := f.JSON()
	if len(errs) > 0 || !sameJSON(t, v, `{"shape":{"kind":"rect","w":1,"h":2},"pick":"2026-01-02"}`) {
		t.Errorf("value %s %v", v, errs)
	}

	// A value the fields cannot hold keeps the form in raw mode.
	f.SetRawMode(true)
	f.SetRawText(`{"shape": {"kind": "hexagon"}}`)
	err := f.SetRawMode(false)
	var le *schemaform.LoadError
	if err == nil || !f.RawMode() || !asLoadError(err, &le) || le.Pointer != "/shape" {
		t.Errorf("unfitting value: %v (raw %v)", err, f.RawMode())
	}
	// In raw mode, the value is validated as typed.
	_, errs = f.Value()
	if len(errs) == 0 {
		t.Errorf("raw value without errors")
	}
	f.SetRawText(`{"shape": `)
	if _, errs = f.Value(); len(errs) != 1 || errs[0].Keyword != "json" {
		t.Errorf("broken raw text: %v", errs)
	}

	f = compileFile(t, "corpus/playwright.browser_click.json")
	f.SetRawMode(true)
	f.SetRawText(`{"target": "e1", "extra": 1}`)
	if err := f.SetRawMode(false); err == nil || !strings.Contains(err.Error(), "/extra") {
		t.Errorf("extra property: %v", err)
	}
}

func asLoadError(err error, le **schemaform.LoadError) bool {
	for err != nil {
		if e, ok := err.(*schemaform.LoadError); ok {
			*le = e
			return true
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		err = u.Unwrap()
	}
	return false
}

func TestBadSchemas(t *testing.T) {
	for name, schema := range map[string]string{
		"not json":       `{"type":`,
		"not an object":  `[1]`,
		"remote ref":     `{"properties": {"a": {"$ref": "https://example.com/s.json"}}}`,
		"dangling ref":   `{"properties": {"a": {"$ref": "#/$defs/missing"}}}`,
		"unknown type":   `{"properties": {"a": {"type": "text"}}}`,
		"duplicate keys": `{"type": "object", "type": "array"}`,
	} {
		if _, err := schemaform.Compile(json.RawMessage(schema)); err == nil {
			t.Errorf("%s: compiled", name)
		} else if !strings.Contains(err.Error(), "schemaform") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestPointerErrors(t *testing.T) {
	f := compileFile(t, "corpus/playwright.browser_click.json")
	for name, err := range map[string]error{
		"set missing":   f.Set("/nope", "x"),
		"set an array":  f.Set("/modifiers", "x"),
		"null":          f.SetNull("/target", true),
		"add to scalar": func() error { _, err := f.AddItem("/target"); return err }(),
		"rm":            f.RemoveItem("/modifiers/3"),
		"choose":        f.Choose("/target", 0),
		"entry":         f.AddEntry(""),
	} {
		var pe *schemaform.PointerError
		if pe, _ = err.(*schemaform.PointerError); pe == nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// The selected edge prefills a field named for its index with the index
// and one named for its id with the id; neither stands in for the other.
func TestPrefillEdge(t *testing.T) {
	schema := json.RawMessage(`{"type": "object", "properties": {
		"edge_id": {"type": "string"}, "edgeIndex": {"type": "integer"}}}`)
	edge := 2
	tests := []struct {
		name string
		ctx  schemaform.Context
		want map[string]string
	}{
		{"both", schemaform.Context{EdgeIndex: &edge, EdgeID: "e-2"}, map[string]string{"/edge_id": "e-2", "/edgeIndex": "2"}},
		{"index only", schemaform.Context{EdgeIndex: &edge}, map[string]string{"/edgeIndex": "2"}},
		{"id only", schemaform.Context{EdgeID: "e-2"}, map[string]string{"/edge_id": "e-2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := schemaform.Compile(schema)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, fl := range f.Prefill(tc.ctx) {
				got[fl.Path] = fl.Raw
				if fl.Inferred.Source != "selected edge" {
					t.Errorf("%s: source %q", fl.Path, fl.Inferred.Source)
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("prefilled %v, want %v", got, tc.want)
			}
		})
	}
}
