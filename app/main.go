// Command app is the Skill Workbench's browser app: go-app v10 components
// compiled to WebAssembly (GOOS=js GOARCH=wasm), one component per file.
//
// In the browser, main registers the routes and runs the app. Natively,
// the same program writes the static site (see site.go): `go run ./app
// -out build/site -wasm build/app.wasm` renders a page for each exact
// route, adds the wasm, the CSS and icons of static/web and the _headers
// file, removes go-app's service worker, replaces its wasm loader with one
// that streams app.wasm straight to the compiler, and checks the result.
//
// To add a route: write its component in its own file and add one line to
// pages below. Components get the shared *env from the factory, never from
// a package variable.
package main

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// page is one route of the app: an exact path, or an anchored regular
// expression for paths with an id in them.
type page struct {
	path    string // exact path; empty when pattern is set
	pattern string // anchored ^…$ regular expression
	new     func(*env) app.Composer
}

// pages lists every route. Exact paths get a static page in the build;
// patterns are deep links served by the host's single-page-app fallback.
var pages = []page{
	{path: "/", new: func(e *env) app.Composer { return &homePage{env: e} }},
	{path: "/skills", new: func(e *env) app.Composer { return &skillsPage{env: e} }},
	{path: "/teach", new: func(e *env) app.Composer { return &teachPage{env: e} }},
	{path: "/import", new: func(e *env) app.Composer { return &importPage{env: e} }},
	{path: "/registry", new: func(e *env) app.Composer { return &registryPage{env: e} }},
	{pattern: "^/skills/[0-9a-f-]{36}$", new: func(e *env) app.Composer { return &skillPage{env: e} }},
	{pattern: "^/skills/[0-9a-f-]{36}/replay$", new: func(e *env) app.Composer { return &replayPage{env: e} }},
}

func main() {
	e := newEnv()
	registerRoutes(e)
	startIdleWarmup(e)
	app.RunWhenOnBrowser()
	// Only reached off the browser: RunWhenOnBrowser never returns there.
	generate(e)
}

// registerRoutes registers every page of pages, each wrapped in the shell,
// and the not-found page for every other path.
func registerRoutes(e *env) {
	for _, p := range pages {
		newPage := p.new
		// Every route is wrapped in the shell, which mounts the capability
		// workbench beside the page.
		factory := func() app.Composer { return &shell{env: e, Page: newPage(e)} }
		if p.pattern != "" {
			app.RouteWithRegexp(p.pattern, factory)
		} else {
			app.Route(p.path, factory)
		}
	}
	// Last, so every route above wins: go-app's own not-found page ignores
	// app.NotFound and has no navigation.
	app.RouteWithRegexp("^/", func() app.Composer { return &shell{env: e, Page: &notFoundPage{}} })
}
