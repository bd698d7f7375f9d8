# The [&] services' clients (pkg/services, pkg/policy/delegatic,
# pkg/memory/graphonomous, pkg/judge/prism). Their contract tests against
# go-sdk servers run in test-unit; this target adds the interop tests
# against a real MCP server that is none of the services
# (server-everything, from node_modules, which it installs): each client
# must refuse it by name.
.PHONY: test-services

test-services: node-deps ## the [&] services' clients refuse a real MCP server that is none of them
	WORKBENCH_MCP_INTEROP_REQUIRED=1 $(GO) test -count=1 -tags interop ./pkg/services/... ./pkg/policy/delegatic/... ./pkg/memory/... ./pkg/judge/...
