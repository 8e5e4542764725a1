# Every target installs what it needs, so each works alone on a fresh clone.
NPM ?= npm
DATA_DIR ?= .data
PORT ?= 6443
FLAGS ?=
TEST_SPECS ?= 'test/unit/**/*.test.ts' 'backends/**/*.test.ts' 'test/integration/**/*.test.ts' 'test/e2e/**/*.test.ts'
# The tests that need no Gatehouse, PostgreSQL, kubectl or Python client: the PostgreSQL backend's tests are left out.
UNIT_SPECS ?= 'test/unit/**/*.test.ts' 'backends/memory/**/*.test.ts' 'backends/embedded/**/*.test.ts'

.PHONY: install build run test test-unit typecheck lint format docs coverage clean bench perf-check postgres-binaries python-client promtool redis-server

node_modules/.package-lock.json: package.json package-lock.json
	$(NPM) ci --no-audit --no-fund

install: node_modules/.package-lock.json

build: install
	npx tsc -p tsconfig.json

## Start Gatehouse on its embedded default store; it prints the kubectl command to reach it. FLAGS adds flags.
run: build
	node bin/gatehouse.js --data-dir $(DATA_DIR) --secure-port $(PORT) $(FLAGS)

typecheck: install
	npx tsc --noEmit -p tsconfig.json

## ESLint with type information (eslint.config.js) and Prettier's check that every file is formatted. ESLint builds the
## whole TypeScript program first (a full type check), so Prettier runs beside it on the other core; either failing fails.
lint: install
	npx prettier --check --log-level warn . & prettier=$$!; \
	npx eslint .; eslint=$$?; \
	wait $$prettier && exit $$eslint

## Applies ESLint's automatic fixes, then rewrites the tree as Prettier formats it: Prettier goes last because a fix
## (a dropped cast, a type import) can change how a line is best broken. Fails if ESLint leaves errors it cannot fix.
format: install
	npx eslint --fix .; eslint=$$?; \
	npx prettier --write --log-level warn . && exit $$eslint

## Writes the generated reference pages: docs/flags.md from the flag table (a unit test fails when it is stale).
docs: install
	node --import tsx -e 'import("./gateway/server/flags-page.ts").then((page) => process.stdout.write(page.flagsPage()))' > docs/flags.md

## PostgreSQL server binaries for the tests, which start their own throwaway clusters; installed when missing.
postgres-binaries:
	@if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing PostgreSQL server binaries (Debian package postgresql-15)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15; \
	else echo "PostgreSQL server binaries are missing: install the Debian package postgresql-15 (apt-get install postgresql-15)"; exit 1; fi

## The official Kubernetes Python client, which some end-to-end tests drive; installed when missing.
python-client:
	@if /usr/bin/python3 -c 'import kubernetes' >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing the Kubernetes Python client (Debian package python3-kubernetes)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-kubernetes; \
	else echo "the Kubernetes Python client is missing: install the Debian package python3-kubernetes"; exit 1; fi

## promtool, which checks deploy/prometheus/alerts.yaml (test/unit/deploy-monitoring.test.ts); installed when missing.
promtool:
	@if command -v promtool >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing promtool (Debian package prometheus)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus; \
	else echo "promtool is missing: install the Debian package prometheus (apt-get install prometheus)"; exit 1; fi

## redis-server, which the shared-state tests start on a free port (test/helpers/redis.ts); installed when missing.
redis-server:
	@if command -v redis-server >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing redis-server (Debian package redis-server)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server; \
	else echo "redis-server is missing: install the Debian package redis-server (apt-get install redis-server)"; exit 1; fi

## The whole suite: lint, type check, unit, integration (real HTTPS, real PostgreSQL), end-to-end with the real kubectl.
## The image's own build (deploy/tsconfig.image.json, the server without the test suites) is type-checked first.
test: lint build postgres-binaries python-client promtool redis-server
	npx tsc --noEmit -p deploy/tsconfig.image.json
	npx mocha $(TEST_SPECS)

## Checks tied to one V8 version, out of `make test`: no site of the request paths may feed V8's inline caches a new
## hidden class per request (test/perf/; about two minutes, memory and PostgreSQL under `node --log-ic`).
perf-check: install postgres-binaries
	npx mocha 'test/perf/**/*.test.ts'

## The unit tests alone (UNIT_SPECS): no server process, no database; seconds.
test-unit: install
	npx mocha $(UNIT_SPECS)

## Line and branch coverage of the unit tests: a text summary here, the HTML report in coverage/.
coverage: install
	npx c8 --reporter=text-summary --reporter=html --reports-dir=coverage mocha $(UNIT_SPECS)

## Figures for every available backend against raw baselines measured in the same run (a few minutes; see bench/).
## BENCH_BACKENDS="memory postgres" runs some of them only; BENCH_NODE_FLAGS="--cpu-prof --cpu-prof-dir=/tmp/prof"
## passes node flags to every gateway started (the run is marked). The 1,000 watch streams need more descriptors than a
## common default soft limit of 1,024, so a lower soft limit is raised to 4,096 when the hard limit allows.
BENCH_BACKENDS ?=
bench: build
	n=$$(ulimit -n); if [ "$$n" != unlimited ] && [ "$$n" -lt 4096 ]; then ulimit -n 4096 2>/dev/null || true; fi; \
	node --import tsx bench/run.ts $(BENCH_BACKENDS)

clean:
	rm -rf dist
