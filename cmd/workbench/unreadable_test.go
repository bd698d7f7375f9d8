package main

import (
	"strings"
	"testing"

	"workbench/fixtures"
	"workbench/pkg/openrouter/openroutertest"
)

// Replies that cannot be read stop teach after a bounded number of them,
// with a line that says so rather than "the model answered without
// acting".
func TestTeachUnreadableReplies(t *testing.T) {
	garbage := openroutertest.Malformed("upstream connect error or disconnect/reset before headers")
	or := stand(t, openroutertest.WithScript(teacher(garbage, garbage, garbage, basicDemo[0], basicDemo[1])))
	code, stdout, stderr := pipeline(t, or, "teach", "--scenario", fixtures.BasicPromptToManifest,
		"--model", teacherModel, "--out", t.TempDir()+"/x.skill.json")
	wantCode(t, code, exitUnproven, stdout, stderr)
	last := stderr[strings.LastIndex(strings.TrimSuffix(stderr, "\n"), "\n")+1:]
	if !strings.Contains(last, "workbench teach: ") || !strings.Contains(last, "replies were unreadable: 3 in a row") {
		t.Errorf("last line does not say the replies were unreadable:\n%s", stderr)
	}
	if strings.Contains(stderr, "without acting") {
		t.Errorf("unreadable replies reported as a model that did not act:\n%s", stderr)
	}
	if n := or.Remaining(teacherModel); n != 2 {
		t.Errorf("%d steps left, want 2: three unreadable replies end the run", n)
	}
}
