package redact_test

import (
	"fmt"
	"strings"

	"workbench/pkg/redact"
	"workbench/pkg/skill"
)

// A synthetic OpenRouter key; it was never issued.
var key = "sk-or-v1-" + strings.Repeat("0123456789abcdef", 4)

func ExampleScan() {
	doc := map[string]any{
		"transcript": []any{
			map[string]any{"role": "user", "content": "My key is " + key + ", please use it."},
			map[string]any{"role": "assistant", "content": "I will not store it."},
		},
	}
	findings, err := redact.Scan(doc)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range findings {
		fmt.Println(f)
	}
	fmt.Println(redact.Summarize(findings))
	// Output:
	// openrouter_key in the string at /transcript/0/content (bytes 10-83)
	// 1 string looks like a secret: openrouter_key
}

func ExampleApply() {
	said := "Find the forecast for Porto. My key is " + key
	b := &skill.Bundle{
		Manifest: skill.Manifest{Name: "Find a forecast", Description: "Uses the key " + key},
		Trace: skill.Trace{Edges: []skill.Edge{{
			TypedAction:     skill.TypedAction{Type: "fill", Params: map[string]any{"field": "city", "text": "Porto"}},
			ParamSources:    map[string]string{"field": skill.SourceLiteral, "text": "input:city"},
			ObservedOutcome: "Forecast for Porto: rain",
		}}},
		Evidence: skill.Evidence{Transcript: []skill.Turn{{Turn: 0, Role: "user", Content: &said}}},
	}

	res, err := redact.Apply(b, skill.RedactionTranscriptPII)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("profile:", res.Profile, "hash verifies:", res.PostRedactionHashMatches)
	for _, p := range res.FieldsStripped {
		fmt.Println("stripped", p)
	}
	fmt.Println(b.Manifest.Description)
	fmt.Println(b.Trace.Edges[0].TypedAction.Params)
	fmt.Println("transcript content:", b.Evidence.Transcript[0].Content, "redacted:", b.Evidence.Transcript[0].Redacted)
	fmt.Println("problems:", len(redact.Check(b)))
	// Output:
	// profile: transcript_pii hash verifies: true
	// stripped /evidence/transcript/0/content
	// stripped /interaction_trace/edges/0/observed_outcome
	// stripped /interaction_trace/edges/0/typed_action/params/text
	// stripped /manifest/description
	// Uses the key [redacted:openrouter_key]
	// map[field:city text:[redacted]]
	// transcript content: <nil> redacted: true
	// problems: 0
}
