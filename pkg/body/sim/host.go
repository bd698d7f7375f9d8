package sim

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"workbench/pkg/body"
	"workbench/pkg/sortfunc"
)

// MaxHostBytes bounds the total size of the host's files, so that a model
// looping on appends cannot grow the state without end. A write past it
// fails as on a full disk.
const MaxHostBytes = 16 << 20

// Errors of the file tree, worded as the system's own.
var (
	errNotExist = errors.New("no such file or directory")
	errIsDir    = errors.New("is a directory")
	errNotDir   = errors.New("not a directory")
	errExist    = errors.New("file exists")
	errNotEmpty = errors.New("directory not empty")
	errNoSpace  = errors.New("no space left on device")
	errBusy     = errors.New("device or resource busy")
)

// abs resolves p against the working directory.
func (s *Sim) abs(p string) string {
	if !path.IsAbs(p) {
		p = path.Join(s.world.Host.Cwd, p)
	}
	return path.Clean(p)
}

func (s *Sim) isDir(p string) bool {
	if p == "/" {
		return true
	}
	_, ok := slices.BinarySearch(s.world.Host.Dirs, p)
	return ok
}

func (s *Sim) isFile(p string) bool {
	_, ok := s.world.Host.Files[p]
	return ok
}

// Entry is one directory entry, as file_list reports it and Perceive
// shows the working directory's.
type Entry struct {
	Name string `json:"name"`
	Type string `json:"type"` // "dir" or "file"
	Size int    `json:"size"` // bytes; 0 for a directory
}

// list returns the entries of directory p, sorted by name.
func (s *Sim) list(p string) ([]Entry, error) {
	if !s.isDir(p) {
		if s.isFile(p) {
			return nil, errNotDir
		}
		return nil, errNotExist
	}
	out := []Entry{}
	for _, d := range s.world.Host.Dirs {
		if d != "/" && path.Dir(d) == p {
			out = append(out, Entry{Name: path.Base(d), Type: "dir"})
		}
	}
	for f, c := range s.world.Host.Files {
		if path.Dir(f) == p {
			out = append(out, Entry{Name: path.Base(f), Type: "file", Size: len(c)})
		}
	}
	sortfunc.Sort(out, func(a, b Entry) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

func (s *Sim) read(p string) (string, error) {
	if c, ok := s.world.Host.Files[p]; ok {
		return c, nil
	}
	if s.isDir(p) {
		return "", errIsDir
	}
	return "", errNotExist
}

// writable says whether a file may be written at p.
func (s *Sim) writable(p string) error {
	if s.isDir(p) {
		return errIsDir
	}
	if dir := path.Dir(p); !s.isDir(dir) {
		if s.isFile(dir) {
			return errNotDir
		}
		return errNotExist
	}
	return nil
}

// write creates or replaces (or appends to) the file at p and reports
// whether it created it.
func (s *Sim) write(p, content string, appendTo bool) (bool, error) {
	if err := s.writable(p); err != nil {
		return false, err
	}
	old, existed := s.world.Host.Files[p]
	if appendTo {
		content = old + content
	}
	total := 0
	for _, c := range s.world.Host.Files {
		total += len(c)
	}
	if total-len(old)+len(content) > MaxHostBytes {
		return false, errNoSpace
	}
	if s.world.Host.Files == nil {
		s.world.Host.Files = map[string]string{}
	}
	s.world.Host.Files[p] = content
	s.changed(partHost)
	return !existed, nil
}

// mkdir creates directory p; with parents, also its missing parents, and
// an existing directory is no error.
func (s *Sim) mkdir(p string, parents bool) error {
	if s.isDir(p) {
		if parents {
			return nil
		}
		return errExist
	}
	if s.isFile(p) {
		return errExist
	}
	dir := path.Dir(p)
	if !s.isDir(dir) {
		if !parents || s.isFile(dir) {
			return s.writable(p)
		}
		if err := s.mkdir(dir, true); err != nil {
			return err
		}
	}
	h := &s.world.Host
	i, _ := slices.BinarySearch(h.Dirs, p)
	h.Dirs = slices.Insert(h.Dirs, i, p)
	s.changed(partHost)
	return nil
}

// remove deletes the file, or empty directory, at p.
func (s *Sim) remove(p string, dirs bool) error {
	h := &s.world.Host
	if s.isFile(p) {
		delete(h.Files, p)
		s.changed(partHost)
		return nil
	}
	if !s.isDir(p) {
		return errNotExist
	}
	if !dirs {
		return errIsDir
	}
	if p == "/" || p == h.Cwd || strings.HasPrefix(h.Cwd, p+"/") {
		return errBusy
	}
	if kids, _ := s.list(p); len(kids) > 0 {
		return errNotEmpty
	}
	i, _ := slices.BinarySearch(h.Dirs, p)
	h.Dirs = slices.Delete(h.Dirs, i, i+1)
	s.changed(partHost)
	return nil
}

func (s *Sim) fileList(a args) body.Result {
	p := s.world.Host.Cwd
	if a.has("path") {
		p = s.abs(a.str("path"))
	}
	es, err := s.list(p)
	if err != nil {
		return failf("cannot list %s: %v", p, err)
	}
	var b strings.Builder
	for _, e := range es {
		b.WriteString(e.Name)
		if e.Type == "dir" {
			b.WriteByte('/')
		}
		b.WriteByte('\n')
	}
	text := strings.TrimSuffix(b.String(), "\n")
	if text == "" {
		text = "(empty directory)"
	}
	return body.Result{Text: text, Structured: map[string]any{"path": p, "entries": es}}
}

func (s *Sim) fileRead(a args) body.Result {
	p := s.abs(a.str("path"))
	c, err := s.read(p)
	if err != nil {
		return failf("cannot read %s: %v", p, err)
	}
	return body.Result{Text: c, Structured: map[string]any{"path": p, "content": c, "size": len(c)}}
}

func (s *Sim) fileWrite(a args) body.Result {
	p := s.abs(a.str("path"))
	content, appendTo := a.str("content"), a.flag("append")
	created, err := s.write(p, content, appendTo)
	if err != nil {
		return failf("cannot write %s: %v", p, err)
	}
	how := "replaced"
	switch {
	case created:
		how = "created"
	case appendTo:
		how = "appended to"
	}
	return body.Result{
		Text:       fmt.Sprintf("Wrote %d bytes to %s (%s).", len(content), p, how),
		Structured: map[string]any{"path": p, "bytes": len(content), "created": created, "append": appendTo},
	}
}

func (s *Sim) fileDelete(a args) body.Result {
	p := s.abs(a.str("path"))
	kind := "file"
	if s.isDir(p) {
		kind = "directory"
	}
	if err := s.remove(p, true); err != nil {
		return failf("cannot delete %s: %v", p, err)
	}
	return body.Result{Text: fmt.Sprintf("Deleted %s %s.", kind, p), Structured: map[string]any{"path": p, "type": kind}}
}
