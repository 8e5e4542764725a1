# Every target installs what it needs, so each works alone on a fresh clone.
NPM ?= npm
DATA_DIR ?= .data
PORT ?= 6443
TEST_SPECS ?= 'test/unit/**/*.test.ts' 'backends/**/*.test.ts' 'test/integration/**/*.test.ts' 'test/e2e/**/*.test.ts'

.PHONY: install build run test typecheck clean

node_modules/.package-lock.json: package.json package-lock.json
	$(NPM) ci --no-audit --no-fund

install: node_modules/.package-lock.json

build: install
	npx tsc -p tsconfig.json

## Start Gatehouse on its embedded default store; it prints the kubectl command to reach it.
run: build
	node bin/gatehouse.js --data-dir $(DATA_DIR) --secure-port $(PORT)

typecheck: install
	npx tsc --noEmit -p tsconfig.json

## The whole suite: type check, unit, integration (real HTTPS), end-to-end with the real kubectl.
test: build
	npx mocha $(TEST_SPECS)

clean:
	rm -rf dist
