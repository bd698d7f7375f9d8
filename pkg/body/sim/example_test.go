package sim_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"workbench/fixtures"
	"workbench/pkg/body/sim"
	"workbench/pkg/skill"
)

// A short script on the weather world: open the site, type a city, submit
// the lookup form and read the forecast page. Every state has a hash; the
// same script gives the same hashes on every platform.
func Example() {
	world, err := fixtures.World("weather")
	if err != nil {
		log.Fatal(err)
	}
	s, err := sim.New(world)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	script := []struct {
		tool string
		args map[string]any
	}{
		{sim.BrowserNavigate, map[string]any{"url": "https://weather.workbench.test/"}},
		{sim.BrowserType, map[string]any{"field": "City", "text": "Paris"}},
		{sim.BrowserSubmit, map[string]any{}},
		{sim.BrowserSnapshot, nil},
	}
	var last string
	for _, c := range script {
		r, err := s.Call(ctx, c.tool, c.args)
		if err != nil {
			log.Fatal(err)
		}
		state, err := s.State(ctx)
		if err != nil {
			log.Fatal(err)
		}
		h, err := skill.StateHash(state)
		if err != nil {
			log.Fatal(err)
		}
		first, _, _ := strings.Cut(r.Text, "\n")
		fmt.Printf("%-16s %s…  %s\n", c.tool, h[:19], first)
		last = r.Text
	}
	fmt.Println()
	fmt.Println(last)
	// Output:
	// browser_navigate sha256:ffb1aa809bdd…  Opened https://weather.workbench.test/.
	// browser_type     sha256:043d2f516110…  Typed "Paris" into textbox "City" of form "Forecast lookup".
	// browser_submit   sha256:6ccc9acba15e…  Submitted form "Forecast lookup" with button "Get forecast"; now at https://weather.workbench.test/forecast/paris.
	// browser_snapshot sha256:6ccc9acba15e…  Page: "Paris — 3-day forecast"
	//
	// Page: "Paris — 3-day forecast"
	// URL: https://weather.workbench.test/forecast/paris
	// - heading "Paris — 3-day forecast" [level=1]
	// - listitem: Monday: 21 °C, light rain
	// - listitem: Tuesday: 24 °C, sunny
	// - listitem: Wednesday: 19 °C, cloudy
	// - link "Forecasts" -> https://weather.workbench.test/
}

// Mutate changes the world between two calls, as a test does to check
// that a replay halts where the world no longer matches its recording.
// Changing text keeps the state's shape; only the exact hash moves.
func ExampleSim_Mutate() {
	world, err := fixtures.World("docs-and-git")
	if err != nil {
		log.Fatal(err)
	}
	s, err := sim.New(world)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	if _, err := s.Call(ctx, sim.BrowserNavigate, map[string]any{"url": "https://git.workbench.test/acme/widget/changelog"}); err != nil {
		log.Fatal(err)
	}
	hashes := func() (string, string) {
		st, _ := s.State(ctx)
		h, _ := skill.StateHash(st)
		sh, _ := skill.ShapeHash(st)
		return h, sh
	}
	h1, sh1 := hashes()
	err = s.Mutate(func(w *sim.World) error {
		for i := range w.Pages {
			if w.Pages[i].URL == "https://git.workbench.test/acme/widget/changelog" {
				w.Pages[i].Blocks[2].Text = "v2.5.0 — 2026-05-26"
			}
		}
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	h2, sh2 := hashes()
	fmt.Println("same state:", h1 == h2)
	fmt.Println("same shape:", sh1 == sh2)
	// Output:
	// same state: false
	// same shape: true
}

// Effect says before a call runs whether it reads or writes, finer than
// the tool's annotations: the shell's reads and writes are told apart.
func ExampleSim_Effect() {
	world, err := fixtures.World("status-and-host")
	if err != nil {
		log.Fatal(err)
	}
	s, err := sim.New(world)
	if err != nil {
		log.Fatal(err)
	}
	for _, cmd := range []string{"cat README.txt", "echo done >> README.txt", "echo done > README.txt"} {
		e, err := s.Effect(sim.ShellExec, map[string]any{"command": cmd})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%-24s %s write=%t destructive=%t\n", cmd, e.Capability, e.Write, e.Destructive)
	}
	// Output:
	// cat README.txt           &body.os write=false destructive=false
	// echo done >> README.txt  &body.os write=true destructive=false
	// echo done > README.txt   &body.os write=true destructive=true
}
