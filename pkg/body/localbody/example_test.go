package localbody_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"workbench/pkg/body/localbody"
)

// Both bodies, restarted when they die, stopped with everything they
// started when the caller is done.
func ExampleStart() {
	ctx := context.Background()
	o := localbody.Options{Restart: localbody.DefaultRestart(), Log: slog.New(slog.NewTextHandler(os.Stderr, nil))}
	bodies, err := localbody.Start(ctx, o, &localbody.Browser{}, &localbody.Host{Dir: "workspace"})
	if err != nil {
		fmt.Println(err) // e.g. Chromium is missing (/usr/bin/chromium): `make chromium` installs it; …
		return
	}
	defer localbody.StopAll(bodies)
	for _, b := range bodies {
		fmt.Printf("%s body: %s, at %s\n", b.Name(), b.About(), b.URL())
	}
}
