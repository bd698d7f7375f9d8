package sim

import (
	"fmt"
)

// Effect is what a call would do, judged from the current state before it
// runs, in the policy's terms (spec §7.4): reads are opening and reading
// pages, following links, listing and reading files and shell commands
// that write nothing; writes are typing into and submitting forms, and
// anything that changes the file tree.
type Effect struct {
	// Capability is the [&] capability the call exercises.
	Capability string
	// Write is set when the call changes the world or what will be sent
	// to a site, as opposed to only looking at it.
	Write bool
	// Destructive is set when the call may delete or overwrite data that
	// exists now.
	Destructive bool
}

// Effect tells what the call would do, without doing it. A tool's
// annotations describe the worst any call of it may do; Effect is exact
// for this call in this state: clicking a link is a read where clicking a
// button is a write, and a shell command line is known to write, and
// whether it overwrites, before it runs. Arguments Call would reject get
// the tool's worst case. An unknown tool is an error wrapping
// ErrUnknownTool.
func (s *Sim) Effect(tool string, a map[string]any) (Effect, error) {
	i, ok := s.base.tools.byName[tool]
	if !ok {
		return Effect{}, fmt.Errorf("sim: %w: %q", ErrUnknownTool, tool)
	}
	t := s.base.tools.specs[i].tool
	worst := Effect{
		Capability:  t.Capability,
		Write:       !*t.Annotations.ReadOnlyHint,
		Destructive: *t.Annotations.DestructiveHint,
	}
	if a == nil {
		a = map[string]any{}
	}
	if checkArgs(s.base.tools.schemas[i], a) != "" {
		return worst, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e := Effect{Capability: t.Capability}
	switch tool {
	case BrowserClick:
		// A click is a write when it may press a button. When the name
		// is ambiguous the click fails, and Write errs on the safe side.
		p := s.world.page(s.url)
		if p == nil {
			return e, nil
		}
		_, buttons := clickTargets(p, args(a).str("name"), args(a).str("role"))
		e.Write = len(buttons) > 0
		return e, nil
	case FileWrite:
		p := s.abs(args(a).str("path"))
		e.Write = true
		e.Destructive = s.isFile(p) && !args(a).flag("append")
		return e, nil
	case FileDelete:
		e.Write, e.Destructive = true, true
		return e, nil
	case ShellExec:
		cmd, err := parseCommand(args(a).str("command"))
		if err != nil {
			return e, nil // the shell refuses the line before running anything
		}
		e.Write = cmd.writes()
		switch {
		case cmd.name == "rm" || cmd.name == "rmdir":
			e.Destructive = true
		case cmd.redirect != "" && !cmd.appendTo:
			e.Destructive = s.isFile(s.abs(cmd.redirect))
		}
		return e, nil
	}
	return worst, nil
}
