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

require (
	github.com/chromedp/cdproto v0.159.0 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
)
