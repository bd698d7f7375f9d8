package localbody

import (
	"strings"
	"sync"
)

// tailBytes is how much of a body's output is kept.
const tailBytes = 16 << 10

// tail keeps the last tailBytes written to it: a body's output, kept for
// saying why it stopped without growing for as long as it runs.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if len(p) > tailBytes {
		p = p[len(p)-tailBytes:]
	}
	if over := len(t.buf) + len(p) - tailBytes; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// lastWords is the line of the output that best says why a process
// ended: the last one naming an error (Node.js ends an uncaught error's
// report with its own version, which says nothing), else the last line.
func (t *tail) lastWords() string {
	lines := strings.Split(strings.TrimRight(t.String(), "\r\n "), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], "Error") {
			return strings.TrimSpace(lines[i])
		}
	}
	return strings.TrimSpace(lines[len(lines)-1])
}
