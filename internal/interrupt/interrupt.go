// Package interrupt ends what a test binary started when the binary is
// interrupted.
//
// Tests start servers such as wrangler dev in process groups of their own,
// so that one kill reaches the grandchildren (wrangler starts node, which
// starts workerd and the bundler). A terminal sends Ctrl+C to its
// foreground process group only, so those groups never see it: a binary
// that dies of the interrupt leaves them running, gigabytes and cores for
// as long as they last.
//
// It guarantees: while Handle's handling is installed, a SIGINT, SIGTERM
// or SIGHUP to the program kills every process whose environment carries
// Mark (the commands started with Env's environment and all they started
// without clearing it), the members of their process groups and their
// descendants, then runs the cleanups Handle was given, and then ends the
// program with status 128 plus the signal's number. Finding those
// processes needs Linux's /proc; elsewhere only the cleanups run. TempDir
// gives a run one temporary directory that such a cleanup removes whole.
package interrupt

import (
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"workbench/pkg/body/localbody"
)

// ownerVar is the environment variable that names the program that owns
// a process.
const ownerVar = "WORKBENCH_TEST_OWNER"

// Mark is the environment entry that names the running program as the
// owner of a command started with it. A process ID is unique among
// running processes, so no other running program's commands carry it; a
// command left behind by an earlier program with the same ID is an
// orphan, and ending it too is what Handle is for.
func Mark() string { return ownerVar + "=" + strconv.Itoa(os.Getpid()) }

// Env returns a copy of env with Mark in place of any owner it names.
func Env(env []string) []string {
	out := make([]string, 0, len(env)+1)
	for _, e := range env {
		if !strings.HasPrefix(e, ownerVar+"=") {
			out = append(out, e)
		}
	}
	return append(out, Mark())
}

// Handle installs the handling the package describes, with cleanup run
// after the processes have ended, and returns the function that removes
// it. A TestMain calls it before starting anything.
func Handle(cleanup ...func()) (stop func()) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, signals()...)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			n, err := end()
			if err != nil {
				fmt.Fprintf(os.Stderr, "%v: the processes the tests started were not looked for: %v\n", sig, err)
			} else {
				fmt.Fprintf(os.Stderr, "%v: ended %d processes the tests had started\n", sig, n)
			}
			for _, c := range cleanup {
				c()
			}
			code := 1
			if s, ok := sig.(syscall.Signal); ok {
				code = 128 + int(s)
			}
			os.Exit(code)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
	}
}

// end kills the processes that carry Mark, with their process groups and
// descendants, and returns how many it found.
func end() (int, error) {
	ps, err := localbody.Processes(Mark())
	for _, p := range ps {
		p.Kill()
	}
	return len(ps), err
}

// TempDir makes a directory for all that the program, and what it starts,
// writes to the system's temporary directory, and points TMPDIR at it
// (os.TempDir, t.TempDir and the commands started read it), so that
// remove takes all of it away: at the end of a run, and on an interrupt
// when passed to Handle. A test run interrupted before its own cleanups
// would otherwise leave its copies, servers' state and browser profiles
// behind. remove is the run's last step: TMPDIR still names the directory
// it removed. Keep prefix short: Chromium binds a Unix socket some 75
// bytes below the directory a browser body makes in it, and a socket's
// path has at most 103.
func TempDir(prefix string) (remove func(), err error) {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return nil, fmt.Errorf("a temporary directory for the run: %w", err)
	}
	if err := os.Setenv("TMPDIR", dir); err != nil {
		os.Remove(dir)
		return nil, fmt.Errorf("a temporary directory for the run: %w", err)
	}
	return func() { os.RemoveAll(dir) }, nil
}
