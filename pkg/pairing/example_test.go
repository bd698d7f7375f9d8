package pairing_test

import (
	"fmt"
	"net"
	"net/http"

	"workbench/pkg/pairing"
	"workbench/pkg/proxy"
)

// The pairing server of `workbench bodies`: a fresh secret, the paired
// page's origin, and the bodies by name behind it.
func ExampleNew() {
	ln, err := net.Listen("tcp", pairing.DefaultAddr)
	if err != nil {
		fmt.Println(err)
		return
	}
	secret := pairing.NewSecret()
	h, err := pairing.New(pairing.Config{
		Origin: "https://workbench.example",
		Addr:   ln.Addr().String(),
		Secret: secret,
		Servers: []proxy.MCPServer{
			{Name: "browser", URL: "http://127.0.0.1:41001/mcp"},
			{Name: "host", URL: "http://127.0.0.1:41002/mcp"},
		},
		Doer: proxy.NewHTTPDoer(),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("pairing secret: " + secret)
	http.Serve(ln, h)
}
