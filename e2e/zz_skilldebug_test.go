package e2e

import (
	"testing"
	"time"
)

func TestZZSkillDebug(t *testing.T) {
	s := newSession(t)
	s.open("/skills/0190a1b2-0000-7000-8000-000000000000")
	time.Sleep(5 * time.Second)
	t.Log(eval[string](s, `document.querySelector("main").innerHTML`))
	s.mu.Lock()
	t.Log(s.problems)
	s.mu.Unlock()
}
