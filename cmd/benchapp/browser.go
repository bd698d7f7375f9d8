package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/systeminfo"
	"github.com/chromedp/chromedp"

	"workbench/internal/headless"
)

// server is a running `workbench serve` of the built site.
type server struct {
	base string
	cmd  *exec.Cmd
}

var servingAt = regexp.MustCompile(`at (http://127\.0\.0\.1:\d+) `)

// startServe runs `workbench serve` on a free loopback port and waits
// until it says where it listens.
func startServe(ctx context.Context, workbench, site string) (*server, error) {
	cmd := exec.CommandContext(ctx, workbench, "serve", "--no-bodies", "--addr", "127.0.0.1:0", "--site", site)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("workbench serve: %w", err)
	}
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		if m := servingAt.FindStringSubmatch(lines.Text()); m != nil {
			go io.Copy(io.Discard, stdout)
			return &server{base: m[1], cmd: cmd}, nil
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	return nil, fmt.Errorf("workbench serve did not say where it listens: %s", stderr.String())
}

func (s *server) stop() {
	s.cmd.Process.Kill()
	s.cmd.Wait()
}

// browser is one headless Chromium with a fresh profile — an empty HTTP
// cache, no compiled-code cache, no IndexedDB — and one tab.
type browser struct {
	tab    context.Context
	cancel func()
	// dir is the profile's directory (--user-data-dir).
	dir string
}

func newBrowser(ctx context.Context, chromium string) (*browser, error) {
	dir, err := os.MkdirTemp("", "benchapp-profile-")
	if err != nil {
		return nil, err
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, append(headless.Options(chromium, dir), chromedp.WindowSize(1280, 900))...)
	tab, cancelTab := chromedp.NewContext(alloc)
	// Start the browser now, so its launch is not part of a measurement.
	if err := chromedp.Do(tab, chromedp.Navigate("about:blank")); err != nil {
		cancelTab()
		cancelAlloc()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start chromium: %w", err)
	}
	return &browser{tab: tab, dir: dir, cancel: func() { cancelTab(); cancelAlloc(); os.RemoveAll(dir) }}, nil
}

func (b *browser) close() { b.cancel() }

// open loads path and waits until the app has rendered the route.
func (b *browser) open(base, path string) error {
	return chromedp.Do(b.tab,
		chromedp.Navigate(base+path),
		chromedp.Poll[chromedp.Void](appReady, chromedp.WithPollingTimeout(time.Minute)),
	)
}

// navigate loads url without waiting for the app.
func (b *browser) navigate(url string) error {
	return chromedp.Do(b.tab, chromedp.Navigate(url))
}

// appReady is true once the app has replaced the static shell with the
// route's content.
const appReady = `!document.getElementById("app-wasm-loader") && !document.querySelector(".wb-shell") && !!document.querySelector("main#main h1")`

// waitFor polls a JavaScript expression until it is truthy.
func (b *browser) waitFor(expr string, timeout time.Duration) error {
	return chromedp.Do(b.tab, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(timeout), chromedp.WithPollingInterval(5*time.Millisecond)))
}

// eval evaluates an expression, awaiting a promise it returns.
func eval[T any](b *browser, expr string) (T, error) {
	return chromedp.Run(b.tab, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
}

// drop drops files on the element matching a CSS selector as a user
// dragging them from the desktop would (Input.dispatchDragEvent).
func (b *browser) drop(sel string, files ...string) error {
	box, err := chromedp.Run(b.tab, chromedp.Dimensions(chromedp.CSS(sel)))
	if err != nil {
		return err
	}
	q := box.Content
	x, y := (q[0]+q[2])/2, (q[1]+q[5])/2
	data := &input.DragData{Files: files, DragOperationsMask: 1}
	return chromedp.Do(b.tab, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		for _, typ := range []input.DispatchDragEventType{input.DispatchDragEventTypeDragEnter, input.DispatchDragEventTypeDragOver, input.DispatchDragEventTypeDrop} {
			if _, err := cdp.Call(ctx, t, input.DispatchDragEvent, input.DispatchDragEventParams{Type: typ, X: x, Y: y, Data: data}); err != nil {
				return fmt.Errorf("%s: %w", typ, err)
			}
		}
		return nil
	}))
}

// addInitScript runs src in every document the tab loads, before the
// page's own scripts (CDP's injected scripts are not subject to the
// page's CSP).
func (b *browser) addInitScript(src string) error {
	return chromedp.Do(b.tab, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: src})
		return err
	}))
}

// processes lists Chromium's processes with the CPU time each has used
// (SystemInfo.getProcessInfo).
func (b *browser) processes() ([]*systeminfo.ProcessInfo, error) {
	c := chromedp.FromContext(b.tab)
	if c == nil || c.Browser == nil {
		return nil, fmt.Errorf("no browser")
	}
	res, err := cdp.Call(b.tab, c.Browser, systeminfo.GetProcessInfo, cdp.Empty{})
	if err != nil {
		return nil, fmt.Errorf("SystemInfo.getProcessInfo: %w", err)
	}
	return res.ProcessInfo, nil
}

// cpuTime is the CPU time Chromium's processes have used so far (browser,
// renderers, utilities such as the network service), in milliseconds.
// Unlike wall time it barely changes with other load on the machine, so
// it tells what a measurement costs when the machine is busy.
func (b *browser) cpuTime() (float64, error) {
	procs, err := b.processes()
	if err != nil {
		return 0, err
	}
	total := 0.0
	for _, p := range procs {
		total += p.CPUTime
	}
	return total * 1000, nil
}

// taskCPU reads /proc/<pid>/task/<tid>/stat (Linux): the thread's name
// and the CPU time it has used, in milliseconds, at the kernel's tick
// resolution (10 ms; USER_HZ is 100 on Linux). ok is false when the
// thread has ended.
func taskCPU(pid int64, tid string) (name string, ms float64, ok bool, err error) {
	path := fmt.Sprintf("/proc/%d/task/%s/stat", pid, tid)
	stat, rerr := os.ReadFile(path)
	if rerr != nil {
		return "", 0, false, nil
	}
	// The name is in parentheses and may hold spaces; after it, state is
	// the 3rd field of the line, utime and stime the 14th and 15th.
	open, end := bytes.IndexByte(stat, '('), bytes.LastIndexByte(stat, ')')
	if open < 0 || end < open {
		return "", 0, false, fmt.Errorf("%s: no name in parentheses", path)
	}
	f := strings.Fields(string(stat[end+1:]))
	if len(f) < 13 {
		return "", 0, false, fmt.Errorf("%s: %d fields after the name", path, len(f))
	}
	utime, err1 := strconv.ParseFloat(f[11], 64)
	stime, err2 := strconv.ParseFloat(f[12], 64)
	if err1 != nil || err2 != nil {
		return "", 0, false, fmt.Errorf("%s: utime %q, stime %q", path, f[11], f[12])
	}
	return string(stat[open+1 : end]), (utime + stime) * 10, true, nil
}

// mainThreadCPU returns the CPU time, in milliseconds, that the main
// thread of each renderer process has used, by process id: the thread
// Go's wasm, go-app and the page's JavaScript run on, without the
// compiler and GC threads beside it.
func (b *browser) mainThreadCPU() (map[int64]float64, error) {
	procs, err := b.processes()
	if err != nil {
		return nil, err
	}
	out := map[int64]float64{}
	for _, p := range procs {
		if p.Type != "renderer" {
			continue
		}
		_, ms, ok, err := taskCPU(p.ID, strconv.FormatInt(p.ID, 10))
		if err != nil {
			return nil, err
		}
		if ok {
			out[p.ID] = ms
		}
	}
	return out, nil
}

// mainThreadDelta is the renderers' main-thread CPU used between two
// readings of mainThreadCPU; a renderer started between them counts from
// zero.
func mainThreadDelta(before, after map[int64]float64) float64 {
	total := 0.0
	for id, t := range after {
		total += t - before[id]
	}
	return total
}

// threadCPU returns the CPU time, in milliseconds, each kind of thread of
// Chromium's processes has used since it started, keyed by process type
// and thread name ("renderer/CrRendererMain", "renderer/V8 DefaultWorke"):
// where the work beside the main thread goes (V8's compiler threads, the
// network service, the compositor). Linux only, at tick resolution.
func (b *browser) threadCPU() (map[string]int, error) {
	procs, err := b.processes()
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, p := range procs {
		tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", p.ID))
		if err != nil {
			continue
		}
		for _, t := range tasks {
			name, ms, ok, err := taskCPU(p.ID, t.Name())
			if err != nil || !ok {
				continue
			}
			out[p.Type+"/"+strings.TrimRight(name, "0123456789")] += int(ms)
		}
	}
	return out, nil
}
