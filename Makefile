# waitsim — see README.md. Every target installs what it needs through the Go
# module proxy (go.mod pins every module, including the gremlins tool).
GO ?= go
PKGS := ./...

.PHONY: all gate test fmt-check vet race scenarios mutate fuzz report bench deps clean

## all / gate: the main job — the scenario table, then the mutation gate.
all: gate
gate: deps scenarios mutate

deps:
	$(GO) mod download

## test: gofmt check, go vet, and the race-enabled test suite.
test: deps fmt-check vet race

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

race:
	$(GO) test -race -count=1 $(PKGS)

## scenarios: run the YAML scenario table and print its result table.
scenarios:
	$(GO) run ./cmd/waitsim run

## mutate: the mutation gate (exit codes in README.md).
mutate:
	$(GO) run ./cmd/waitsim mutate

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./sim/ ./scenarios/

clean:
	rm -rf out
