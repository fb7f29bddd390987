# waitsim — see README.md. Every target installs what it needs through the Go
# module proxy (go.mod pins every module, the gremlins tool included).
GO ?= go
# Go 1.27.3 (its httptest.NewTestServer serves inside a synctest bubble). The
# machine's own go fetches it through the module proxy on first use.
export GOTOOLCHAIN := go1.27.3
# That toolchain's own go first on PATH: every go command the targets and
# their tests start (about 500 in make test) then runs it directly instead of
# the machine's go, which reads go.mod and starts 1.27.3 in a second process
# (about 20 ms of CPU each, measured 3 December 2026). GOROOT goes with it,
# as the machine's go sets it when it starts another toolchain: a GOROOT of
# another Go in the environment would otherwise meet this go's tools. Empty
# when the toolchain cannot be had: then the machine's go (and gofmt) are
# used, and the first go command says why.
GOROOT_SELECTED := $(shell GOTOOLCHAIN=$(GOTOOLCHAIN) $(GO) env GOROOT 2>/dev/null)
ifneq ($(GOROOT_SELECTED),)
export PATH := $(GOROOT_SELECTED)/bin:$(PATH)
export GOROOT := $(GOROOT_SELECTED)
endif
N ?= 2000
SEED ?= 0
ROUNDS ?= 1

.PHONY: all gate test deps schema-deps bin fmt-check vet race determinism transport-determinism scenarios mutate mutate-checker independent realclock conformance tsclient proxies mcp-conformance mcp-suite installs faults fuzz bench golden report report-check clean speed

# The command is built once and run directly, so its exit codes (README.md)
# reach make's "Error N" line unchanged (go run turns every failure into 1).
WAITSIM := out/bin/waitsim

## all / gate: the main job — the scenario table, then the mutation gate.
all: gate
gate: scenarios mutate

## deps: the Go modules (go.mod pins every one, gremlins included).
deps:
	$(GO) mod download

## schema-deps: the published Stryker report schema the reports tests
## validate against (npm registry).
schema-deps:
	npm install --prefix out/deps --no-audit --no-fund --silent mutation-testing-report-schema@3.8.4

bin: deps
	$(GO) build -o $(WAITSIM) ./cmd/waitsim

## test: gofmt check, go vet, the race-enabled suite, then the table, the
## HTTP worlds and the busy world again at GOMAXPROCS 1, 2 and 4 without
## -race (golden traces and trace hashes must match in both builds), and the
## fault replays.
test: deps schema-deps fmt-check vet race determinism faults
	@echo "make test: every step passed"

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

## faults: issue 20's attacks that need a process, replayed against the
## built binary (scripts/faults.sh): a bad case id, null tool arguments over
## stdio and HTTP, an evil and a loopback Origin, a session flood past the cap, a
## stderr nobody reads, malformed --http addresses, mutate on a full temp
## dir, two campaigns in one tree, SIGKILL of a campaign's process group.
## About 10 s (more when the first server builds the test binary that
## serves); every process it starts is stopped, its files removed.
faults: bin
	timeout -k 5 360 scripts/faults.sh $(WAITSIM)

## race: the suite under the race detector, except RACE_FREE: packages whose
## code and tests start no goroutine (reports/racefree_test.go keeps it so);
## the worlds their tests run are the sim's, which sim/, packs/ and
## scenarios/ run under -race. They run without it (5× less CPU for reports).
RACE_FREE := ./reports ./reports/model ./reports/text ./reports/timeline
# The test binaries of make test are linked without DWARF data (-w), as
# waitsim links the ones it builds (suitebin.LinkFlags, which gives the
# measurement): nothing reads it, and the race detector's reports keep their
# files and lines. None when GOFLAGS holds -ldflags: ours would replace it.
TEST_LINK := $(if $(findstring -ldflags,$(shell GOTOOLCHAIN=$(GOTOOLCHAIN) $(GO) env GOFLAGS 2>/dev/null)),,-ldflags=-w)
race:
	$(GO) test $(TEST_LINK) -race -count=1 $$($(GO) list ./... | grep -v -x -F $(foreach p,$(RACE_FREE),-e github.com/waitsim/waitsim/$(patsubst ./%,%,$(p))))
	$(GO) test $(TEST_LINK) -count=1 $(RACE_FREE)

## determinism: the table (with its golden traces) at GOMAXPROCS 1, 2 and 4
## without -race, beside every HTTP world 20 times at each and the busy
## world 34 times at each (the race step runs them 5 and 10 times).
determinism:
	$(GO) test $(TEST_LINK) -count=1 -run '^(TestTransportDeterminism|TestDeterminism)$$' ./packs/waitagents/ & p=$$!; \
	$(GO) test $(TEST_LINK) -count=1 -cpu 1,2,4 -run '^TestTable$$' ./scenarios/; s=$$?; \
	wait $$p && exit $$s

## transport-determinism: every HTTP world 100 times at GOMAXPROCS 1, 2 and 4,
## with and without -race: one trace hash each (make test: 20 times without
## -race, 5 with).
transport-determinism:
	$(GO) test -count=1 -run '^TestTransportDeterminism$$' ./packs/waitagents/ -waitsim.transport-runs=100
	$(GO) test -race -count=1 -run '^TestTransportDeterminism$$' ./packs/waitagents/ -waitsim.transport-runs=100

## scenarios: run the YAML scenario table and print its result table.
scenarios: bin
	$(WAITSIM) run --json scenarios/table scenarios/sweep

## speed: issue 21's speed goals side by side in one run (docs/speed.md;
## several minutes: the campaign with each runner, the table, gremlins' own
## campaign, a --diff after a one-line change in a scratch worktree).
## BEFORE=path times another waitsim's campaign in the same rounds.
speed: bin
	BEFORE=$(BEFORE) scripts/speed.sh $(WAITSIM) $(ROUNDS)

## mutate: the mutation gate (exit codes in README.md).
mutate: bin
	$(WAITSIM) mutate

## mutate-checker: who tests the tester — the second campaign, over the
## checking code: the contract's invariants and reference model
## (packs/waitagents), the generic expectations and invariants (check), the
## loader's rules (scenario), each run against the tests that feed each check
## a world or file that breaks it. Threshold: mutants/checker-gate.yaml;
## equivalents: mutants/equivalent-checker.yaml; results:
## out/mutation-checker-{pack,check,scenario}.json.
CHECKER := $(WAITSIM) mutate --no-catalog --no-vet --config mutants/checker-gate.yaml --equivalents mutants/equivalent-checker.yaml
CHECKER_PACK_RUN := ^(TestInvariantsFire|TestOracleWorldsPass|TestModel.*|TestPrefixChars|TestChain.*|TestContractListsInvariants)$$
CHECKER_CHECK_RUN := ^(TestExpectationsFire|TestExpectNoSuchCall|TestGenericInvariantsFire)$$
CHECKER_SCENARIO_RUN := ^(TestLoad.*|TestMatrix.*|TestEveryArgsProblem|TestNumbersOneRule|TestProblemIsOneLine|TestTableSize|TestSchema.*)$$
mutate-checker: bin
	$(CHECKER) --target ./packs/waitagents/ --pkg ./packs/waitagents/ --run '$(CHECKER_PACK_RUN)' \
		--only '^gremlins:packs/waitagents/(invariants|model)\.go:' --out out/mutation-checker-pack.json --cache out/mutation-checker-pack-cache.json
	$(CHECKER) --target ./check/ --pkg ./check/ --run '$(CHECKER_CHECK_RUN)' \
		--only '^gremlins:check/(expect|invariants)\.go:' --out out/mutation-checker-check.json --cache out/mutation-checker-check-cache.json
	$(CHECKER) --target ./scenario/ --pkg ./scenario/ --run '$(CHECKER_SCENARIO_RUN)' \
		--only '^gremlins:scenario/(rules|load|validate|args|matrix|parse)\.go:' --out out/mutation-checker-scenario.json --cache out/mutation-checker-scenario-cache.json

## independent: the independent mutant set (mutants/independent/, written from
## the contract and the code alone) against the gate's kill suite; fails
## (exit 1) unless every one of them is killed. Writes out/independent.json.
independent: bin
	$(WAITSIM) mutate --catalog mutants/independent --no-operators --no-cache --out out/independent.json

## conformance: real clients — the official TypeScript SDK client (npm ci
## from conformance/tsclient/package-lock.json, into out/tsclient) and the Go
## SDK client — against `waitsim serve` on the real clock over stdio, SSE and
## JSON-response HTTP, and the cases with a transport: through real proxies
## (nginx with buffering off and on, HAProxy: Debian's packages, see
## proxies), compared with the simulation; writes out/conformance.json, the
## logs and the proxies' generated configs under out/conformance/. Wall time
## is the point: about 2 minutes, bounded at 10.
conformance: bin tsclient proxies
	timeout -k 10 600 $(WAITSIM) conformance

## installs: what conformance and mcp-conformance install (the TypeScript
## client, the proxies, the MCP conformance suite), without running either:
## .ci/run starts it beside the CPU-bound steps.
installs: tsclient proxies mcp-suite

## proxies: Debian's nginx and haproxy for the proxied legs, installed with
## apt-get when either is missing (as root, else through sudo). Their
## packages' services are not started (a policy-rc.d that denies them, for
## the install only, where the machine has none): conformance starts its own
## on 127.0.0.1, as the same user, and stops them.
PROXIES := nginx haproxy
proxies:
	@missing=; for p in $(PROXIES); do command -v $$p >/dev/null 2>&1 || [ -x /usr/sbin/$$p ] || missing="$$missing $$p"; done; \
	[ -z "$$missing" ] && exit 0; \
	sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
	if [ ! -e /usr/sbin/policy-rc.d ]; then \
		printf '#!/bin/sh\nexit 101\n' | $$sudo tee /usr/sbin/policy-rc.d >/dev/null && $$sudo chmod 755 /usr/sbin/policy-rc.d; \
		trap '$$sudo rm -f /usr/sbin/policy-rc.d' EXIT; \
	fi; \
	echo "proxies: installing$$missing with apt-get"; \
	$$sudo apt-get update -qq && \
	$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=300 --no-install-recommends $$missing >/dev/null && \
	for p in $$missing; do command -v $$p >/dev/null 2>&1 || [ -x /usr/sbin/$$p ] || { echo "proxies: $$p still missing"; exit 1; }; done

TSCLIENT := out/tsclient
$(TSCLIENT)/.installed: conformance/tsclient/package.json conformance/tsclient/package-lock.json
	mkdir -p $(TSCLIENT)
	cp conformance/tsclient/package.json conformance/tsclient/package-lock.json $(TSCLIENT)/
	cd $(TSCLIENT) && npm ci --no-audit --no-fund --silent
	touch $@

tsclient: $(TSCLIENT)/.installed
	cp conformance/tsclient/client.mjs $(TSCLIENT)/

## mcp-conformance: the official MCP conformance suite
## (@modelcontextprotocol/conformance 0.1.16 and the Node 22 it needs, from
## the npm package node, both pinned by conformance/mcp-suite/package-lock.json
## and installed with npm ci into out/mcp-suite) against `waitsim serve` in
## each HTTP mode (SSE, JSON, stateless SSE, stateless JSON; the suite has no
## stdio server scenarios), each server on 127.0.0.1 with a port the kernel
## picks, stopped at the end. Fails when a generic scenario fails or warns
## for a reason that is serve's; lists the scenarios that need tools, prompts
## or resources serve does not have, with the reason. About 30 s (more when
## the first server builds the test binary that serves); results
## in out/mcp-conformance/ (docs/real-clients.md).
MCPSUITE := out/mcp-suite
mcp-conformance: bin mcp-suite
	timeout -k 10 300 $(MCPSUITE)/node_modules/.bin/node scripts/mcp-conformance.mjs \
		--waitsim $(WAITSIM) --suite $(MCPSUITE) --out out/mcp-conformance

$(MCPSUITE)/.installed: conformance/mcp-suite/package.json conformance/mcp-suite/package-lock.json
	rm -rf $(MCPSUITE)
	mkdir -p $(MCPSUITE)
	cp conformance/mcp-suite/package.json conformance/mcp-suite/package-lock.json $(MCPSUITE)/
	cd $(MCPSUITE) && npm ci --no-audit --no-fund --silent
	$(MCPSUITE)/node_modules/.bin/node -e 'if (+process.versions.node.split(".")[0] < 22) { console.error("mcp-suite: Node " + process.versions.node + ", the suite needs 22 or later"); process.exit(1) }'
	touch $@

mcp-suite: $(MCPSUITE)/.installed

## report: render out/report/ from out/scenarios.json and out/mutation.json;
## with BASE=<git ref>, build and run the base in a git worktree and compare.
report: bin
ifdef BASE
	$(WAITSIM) report --base-ref $(BASE)
else
	$(WAITSIM) report
endif

## report-check: render the HTML report of the fixtures in headless Chromium
## and write a screenshot (needs Debian's chromium).
report-check: bin
	$(WAITSIM) report --base reports/testdata/base.json --head reports/testdata/head.json --out out/report-check || [ $$? -eq 1 ]
	bash reports/check_html.sh out/report-check/report.html

## realclock: the tool on the REAL clock with an instant in-process bridge
## (contract §2 step 12): 100 one-second calls and 10 capped chains, counting
## replies that lose their outputs and progress above total, and calls whose
## last sleep is shorter than a millisecond, whose progress must still grow;
## then the loaded run: REALCLOCK_ROUNDS rounds of 100 one-second calls beside
## REALCLOCK_BUSY busy-loop processes (default 3 per core: a load of at least
## twice the cores), which the test starts, bounds and always kills, each
## round with the load it ran under (Linux only). About a minute, then about
## 30 s; kept out of the deterministic suite by a build tag.
REALCLOCK_BUSY ?= $(shell echo $$((3 * $$(nproc))))
REALCLOCK_ROUNDS ?= 5
realclock: deps
	$(GO) test -tags realclock -count=1 -v -run '^TestRealClock(OneSecond|CappedChains|ProgressSubMillisecond)$$' ./waittool/
	timeout -k 10 600 $(GO) test -tags realclock -count=1 -v -run '^TestRealClockLoaded$$' ./waittool/ \
		-args -realclock.busy=$(REALCLOCK_BUSY) -realclock.rounds=$(REALCLOCK_ROUNDS)

## fuzz: N random worlds against the invariants (SEED=0: a random seed).
fuzz:
	$(GO) test -count=1 -run '^TestGenerated$$' ./scenarios/ -rapid.checks=$(N) -rapid.seed=$(SEED)

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./packs/waitagents/ ./scenarios/

## golden: rewrite the golden traces and scenarios/schema.json.
golden:
	$(GO) test -count=1 -run '^TestTable$$' ./scenarios/ -args -waitsim.update
	$(GO) test -count=1 -run '^TestSchemaInSync$$' ./scenario/ -args -update

clean:
	rm -rf out
