module example.com/waitagents

go 1.27.3

require (
	github.com/google/jsonschema-go v0.4.3
	github.com/modelcontextprotocol/go-sdk v1.8.0
	github.com/waitsim/waitsim v0.0.0
)

require (
	github.com/benbjohnson/clock v1.3.5 // indirect
	github.com/goccy/go-yaml v1.19.2 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/sync v0.20.0 // indirect
	golang.org/x/sys v0.41.0 // indirect
	golang.org/x/time v0.15.0 // indirect
	pgregory.net/rapid v1.3.0 // indirect
)

// The example runs against this checkout of waitsim; a module of your own
// requires a published version instead.
replace github.com/waitsim/waitsim => ../..
