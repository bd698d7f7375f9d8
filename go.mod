module workbench

go 1.26.8

require (
	github.com/google/uuid v1.6.0
	golang.org/x/text v0.44.0
)

require (
	github.com/chromedp/chromedp v0.23.0
	github.com/gowebpki/jcs v1.0.2
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/syumai/workers v0.31.0
)

require github.com/andybalholm/brotli v1.3.0

require github.com/aymanbagabas/go-udiff v0.4.2

require (
	github.com/chromedp/cdproto v0.159.0
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/hack-pad/safejs v0.1.0
	github.com/maxence-charriere/go-app/v10 v10.1.3
	github.com/modelcontextprotocol/go-sdk v1.8.0
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	go.yaml.in/yaml/v3 v3.0.5
	golang.org/x/net v0.35.0
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/sync v0.25.0 // indirect
	golang.org/x/sys v0.41.0 // indirect
	golang.org/x/time v0.15.0 // indirect
)
