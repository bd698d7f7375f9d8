package sim

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"workbench/pkg/body"
)

// The shell runs one command with at most one output redirection. It has
// no pipes, sequencing, variables, globs or tilde expansion, so what a
// command line will read and write is known from the line alone, before
// it runs (see Effect).

// command is a parsed command line.
type command struct {
	name     string
	args     []string
	redirect string // target of > or >>; "" for none
	appendTo bool   // >> rather than >
}

// writes says whether the command writes to the file tree when it runs.
func (c command) writes() bool {
	if c.redirect != "" {
		return true
	}
	switch c.name {
	case "mkdir", "touch", "rm", "rmdir":
		return true
	}
	return false
}

type token struct {
	text string
	op   string // ">" or ">>" for an operator; "" for a word
}

// parseCommand splits a command line into words with POSIX quoting
// (single quotes, double quotes, backslash) and finds its redirection.
func parseCommand(line string) (command, error) {
	var toks []token
	var cur strings.Builder
	inWord := false
	end := func() {
		if inWord {
			toks = append(toks, token{text: cur.String()})
			cur.Reset()
			inWord = false
		}
	}
	unsupported := func(c byte) error {
		switch c {
		case '$', '`':
			return fmt.Errorf("%q: variables and command substitution are not supported", c)
		case '*', '?', '[':
			return fmt.Errorf("%q: globs are not supported; name each file (quote the character to use it literally)", c)
		case '~':
			return errors.New("'~': there is no home directory expansion; use an absolute path")
		}
		return fmt.Errorf("%q: this shell runs one command with at most one output redirection (> or >>); pipes, ;, & and < are not supported", c)
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			end()
		case c == '\n' || c == '\r':
			return command{}, errors.New("one command per call: the line has a line break")
		case c == '\\':
			if i+1 >= len(line) {
				return command{}, errors.New("the line ends with a lone backslash")
			}
			i++
			cur.WriteByte(line[i])
			inWord = true
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return command{}, errors.New("unterminated single quote")
			}
			cur.WriteString(line[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				switch line[i] {
				case '\\':
					if i+1 < len(line) && strings.IndexByte("\"\\$`", line[i+1]) >= 0 {
						i++
					}
				case '$', '`':
					return command{}, unsupported(line[i])
				}
				cur.WriteByte(line[i])
			}
			if i >= len(line) {
				return command{}, errors.New("unterminated double quote")
			}
			inWord = true
		case c == '>':
			end()
			op := ">"
			if i+1 < len(line) && line[i+1] == '>' {
				op = ">>"
				i++
			}
			toks = append(toks, token{op: op})
		case strings.IndexByte("|;&<()$`", c) >= 0:
			return command{}, unsupported(c)
		case c == '~' && !inWord, strings.IndexByte("*?[", c) >= 0:
			return command{}, unsupported(c)
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	end()
	var cmd command
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.op == "" {
			if cmd.redirect != "" {
				return command{}, errors.New("the redirection must come last")
			}
			if i == 0 {
				cmd.name = t.text
			} else {
				cmd.args = append(cmd.args, t.text)
			}
			continue
		}
		if cmd.redirect != "" {
			return command{}, errors.New("only one redirection is allowed")
		}
		if i+1 >= len(toks) || toks[i+1].op != "" || toks[i+1].text == "" {
			return command{}, fmt.Errorf("%s needs a file name after it", t.op)
		}
		cmd.redirect, cmd.appendTo = toks[i+1].text, t.op == ">>"
		i++
	}
	if cmd.name == "" {
		return command{}, errors.New("no command given")
	}
	return cmd, nil
}

// shellRun collects a command's output and what it changed.
type shellRun struct {
	out, errOut strings.Builder
	changed     []string
}

func (r *shellRun) fail(format string, a ...any) int {
	fmt.Fprintf(&r.errOut, format+"\n", a...)
	return 1
}

func (r *shellRun) change(p string) {
	if !slices.Contains(r.changed, p) {
		r.changed = append(r.changed, p)
	}
}

// flags splits leading options from operands; allowed lists the option
// letters the command takes. "--" ends the options.
func flags(name string, argv []string, allowed string) (map[byte]bool, []string, error) {
	set := map[byte]bool{}
	for i, a := range argv {
		if a == "--" {
			return set, argv[i+1:], nil
		}
		if len(a) < 2 || a[0] != '-' {
			return set, argv[i:], nil
		}
		for j := 1; j < len(a); j++ {
			if strings.IndexByte(allowed, a[j]) < 0 {
				opts := "none"
				if allowed != "" {
					opts = "-" + strings.Join(strings.Split(allowed, ""), ", -")
				}
				return nil, nil, fmt.Errorf("%s: unsupported option -%c (supported: %s)", name, a[j], opts)
			}
			set[a[j]] = true
		}
	}
	return set, nil, nil
}

func (s *Sim) shell(a args) body.Result {
	line := a.str("command")
	cmd, err := parseCommand(line)
	if err != nil {
		return shellResult(line, command{}, 2, "", "sh: "+err.Error()+"\n", nil)
	}
	var r shellRun
	target := ""
	if cmd.redirect != "" {
		// The shell opens the target before the command runs: > empties
		// it even when the command then fails.
		target = s.abs(cmd.redirect)
		if err := s.writable(target); err != nil {
			return shellResult(line, cmd, 1, "", fmt.Sprintf("sh: %s: %v\n", cmd.redirect, err), nil)
		}
		if !cmd.appendTo || !s.isFile(target) {
			if _, err := s.write(target, "", false); err != nil {
				return shellResult(line, cmd, 1, "", fmt.Sprintf("sh: %s: %v\n", cmd.redirect, err), nil)
			}
			r.change(target)
		}
	}
	code := s.exec(cmd, &r)
	stdout := r.out.String()
	if target != "" {
		if stdout != "" {
			if _, err := s.write(target, stdout, true); err != nil {
				fmt.Fprintf(&r.errOut, "sh: %s: %v\n", cmd.redirect, err)
				code = 1
			} else {
				r.change(target)
			}
		}
		stdout = ""
	}
	return shellResult(line, cmd, code, stdout, r.errOut.String(), r.changed)
}

func shellResult(line string, cmd command, code int, stdout, stderr string, changed []string) body.Result {
	var b strings.Builder
	b.WriteString(stdout)
	b.WriteString(stderr)
	if code != 0 {
		fmt.Fprintf(&b, "[exit status %d]\n", code)
	}
	if len(changed) > 0 {
		fmt.Fprintf(&b, "[changed the file tree: %s]\n", strings.Join(changed, ", "))
	}
	text := strings.TrimSuffix(b.String(), "\n")
	if text == "" {
		text = "(no output)"
	}
	effect := "read"
	if cmd.writes() {
		effect = "write"
	}
	if changed == nil {
		changed = []string{}
	}
	return body.Result{
		Text:    text,
		IsError: code != 0,
		Structured: map[string]any{
			"command": line, "exit_code": code, "stdout": stdout, "stderr": stderr,
			"effect": effect, "changed": changed,
		},
	}
}

// exec runs a parsed command and returns its exit status.
func (s *Sim) exec(cmd command, r *shellRun) int {
	switch cmd.name {
	case "pwd":
		if len(cmd.args) > 0 {
			return r.fail("pwd: too many arguments")
		}
		r.out.WriteString(s.world.Host.Cwd + "\n")
	case "cd":
		if len(cmd.args) > 1 {
			return r.fail("cd: too many arguments")
		}
		dir := s.base.initial.Host.Cwd
		if len(cmd.args) == 1 {
			dir = s.abs(cmd.args[0])
		}
		if !s.isDir(dir) {
			err := errNotExist
			if s.isFile(dir) {
				err = errNotDir
			}
			return r.fail("cd: %s: %v", cmd.args[0], err)
		}
		if dir != s.world.Host.Cwd {
			s.world.Host.Cwd = dir
			s.changed(partHost)
		}
	case "ls":
		return s.ls(cmd.args, r)
	case "cat":
		if len(cmd.args) == 0 {
			return r.fail("cat: reading standard input is not supported; name a file")
		}
		code := 0
		for _, a := range cmd.args {
			c, err := s.read(s.abs(a))
			if err != nil {
				code = r.fail("cat: %s: %v", a, err)
				continue
			}
			r.out.WriteString(c)
		}
		return code
	case "echo":
		argv, nl := cmd.args, "\n"
		if len(argv) > 0 && argv[0] == "-n" {
			argv, nl = argv[1:], ""
		}
		r.out.WriteString(strings.Join(argv, " ") + nl)
	case "mkdir":
		opts, paths, err := flags("mkdir", cmd.args, "p")
		if err != nil {
			return r.fail("%v", err)
		}
		if len(paths) == 0 {
			return r.fail("mkdir: missing operand")
		}
		code := 0
		for _, a := range paths {
			p := s.abs(a)
			existed := s.isDir(p)
			if err := s.mkdir(p, opts['p']); err != nil {
				code = r.fail("mkdir: cannot create directory %s: %v", strconv.Quote(a), err)
				continue
			}
			if !existed {
				r.change(p)
			}
		}
		return code
	case "touch":
		if len(cmd.args) == 0 {
			return r.fail("touch: missing file operand")
		}
		code := 0
		for _, a := range cmd.args {
			p := s.abs(a)
			if s.isFile(p) || s.isDir(p) {
				continue // no timestamps here, so nothing changes
			}
			if _, err := s.write(p, "", false); err != nil {
				code = r.fail("touch: cannot touch %s: %v", strconv.Quote(a), err)
				continue
			}
			r.change(p)
		}
		return code
	case "rm", "rmdir":
		allowed := "f"
		if cmd.name == "rmdir" {
			allowed = ""
		}
		opts, paths, err := flags(cmd.name, cmd.args, allowed)
		if err != nil {
			return r.fail("%v", err)
		}
		if len(paths) == 0 {
			return r.fail("%s: missing operand", cmd.name)
		}
		code := 0
		for _, a := range paths {
			p := s.abs(a)
			switch {
			case cmd.name == "rmdir" && s.isFile(p):
				code = r.fail("rmdir: failed to remove %s: %v", strconv.Quote(a), errNotDir)
				continue
			case cmd.name == "rm" && opts['f'] && !s.isFile(p) && !s.isDir(p):
				continue
			}
			if err := s.remove(p, cmd.name == "rmdir"); err != nil {
				code = r.fail("%s: cannot remove %s: %v", cmd.name, strconv.Quote(a), err)
				continue
			}
			r.change(p)
		}
		return code
	default:
		fmt.Fprintf(&r.errOut, "sh: %s: command not found (commands: cat, cd, echo, ls, mkdir, pwd, rm, rmdir, touch)\n", cmd.name)
		return 127
	}
	return 0
}

func (s *Sim) ls(argv []string, r *shellRun) int {
	opts, paths, err := flags("ls", argv, "al1")
	if err != nil {
		r.fail("%v", err)
		return 2
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	line := func(name, typ string, size int) {
		if opts['l'] {
			kind := "-"
			if typ == "dir" {
				kind = "d"
			}
			fmt.Fprintf(&r.out, "%s %8d %s\n", kind, size, name)
			return
		}
		r.out.WriteString(name + "\n")
	}
	code := 0
	var files, dirs []string
	for _, a := range paths {
		p := s.abs(a)
		switch {
		case s.isFile(p):
			files = append(files, a)
		case s.isDir(p):
			dirs = append(dirs, a)
		default:
			code = r.fail("ls: cannot access %s: %v", strconv.Quote(a), errNotExist)
		}
	}
	slices.Sort(files)
	slices.Sort(dirs)
	for _, a := range files {
		line(a, "file", len(s.world.Host.Files[s.abs(a)]))
	}
	for i, a := range dirs {
		if len(paths) > 1 {
			if i > 0 || len(files) > 0 {
				r.out.WriteString("\n")
			}
			r.out.WriteString(a + ":\n")
		}
		es, _ := s.list(s.abs(a))
		for _, e := range es {
			if strings.HasPrefix(e.Name, ".") && !opts['a'] {
				continue
			}
			line(e.Name, e.Type, e.Size)
		}
	}
	return code
}
