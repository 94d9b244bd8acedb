# The two commands of the README, and their parts.
.PHONY: run test test-tools build

# Start the service on its embedded defaults (port 8080, data in ./papertide-data, mail to the outbox).
run:
	cargo run --release --locked -p web --bin papertide -- serve

# Every test: installs the test peers (maildev), then lints and runs the Rust tests.
test:
	./scripts/test.sh

test-tools:
	cd tools && npm ci --no-audit --no-fund

build:
	cargo build --release --locked -p web --bin papertide
