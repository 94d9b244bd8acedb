# The two commands of the README, and their parts.
.PHONY: run test client test-tools build bench-report

# Build the web client, then build and start the service on its embedded defaults
# (port 8080, data in ./papertide-data, mail to the outbox), fetching the embedding model into
# the data directory first when it is not there (once; without it papers are ranked by words).
run: client
	{ [ -s papertide-data/models/all-minilm-l6-v2/model.safetensors ] && [ -s papertide-data/runtime/libonnxruntime.so.1.32.0 ]; } || cargo run --release --locked -p web --bin papertide -- model fetch || echo "the embedding model could not be fetched: papers are ranked by their words"
	cargo run --release --locked -p web --bin papertide -- serve

# Every test: installs the test peers, builds the client, then client unit tests, Rust lints and
# tests, and the browser tests against the real binary.
test:
	./scripts/test.sh

client:
	cd web/client && npm install --no-audit --no-fund --no-save --loglevel=error && npm run build

test-tools:
	cd tools && npm ci --no-audit --no-fund --loglevel=error
	[ -x tools/stripe/.venv/bin/python ] || python3 -m venv tools/stripe/.venv
	tools/stripe/.venv/bin/pip install --quiet --disable-pip-version-check -r tools/stripe/requirements.txt

build: client
	cargo build --release --locked -p web --bin papertide

# The benchmark report (bench/README.md, "report"): release builds of the service and the bench,
# then digest, ingest, http and coldstart at several sizes into bench/report/ (about 15 minutes
# on 2 cores; pass options with ARGS, e.g. make bench-report ARGS="--skip coldstart").
bench-report:
	cargo build --release --locked -p web -p bench
	"$${CARGO_TARGET_DIR:-target}/release/papertide-bench" report $(ARGS)
