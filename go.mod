module workbench

go 1.26.8

require (
	github.com/google/uuid v1.6.0
	golang.org/x/text v0.44.0
)

require (
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/syumai/workers v0.31.0
)
