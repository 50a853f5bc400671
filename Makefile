# keychainctl — see README.md. Every target that builds installs what is missing first.
PREFIX ?= /usr/local
SWIFT ?= swift
APT_PACKAGES := libsodium-dev libsqlite3-dev libssl-dev pkg-config
BENCH_PACKAGES := sqlite3 valgrind
# A fully static executable: no dynamic loader at start-up (find: 3.3 ms → 2.3 ms).
RELEASE_FLAGS := -c release --static-swift-stdlib -Xswiftc -static-executable
BENCH_RUNS ?= 41
# libFuzzer targets (Fuzz/), built with ASan into their own build folder; seeds in Fixtures/Fuzz.
FUZZ_TARGETS := profile arguments values
FUZZ_SECONDS ?= 120
FUZZ_BUILD := KEYCHAINCTL_FUZZ=1 $(SWIFT) build --build-path .build/fuzz -c release \
	-Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library

.PHONY: all deps bench-deps build release test demo bench lint install clean fuzz

all: build

# Installs the Debian packages among $(1) that are missing (needs root, as on CI and Debian images).
define install-missing
	@missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		if [ "$$(id -u)" -ne 0 ]; then SUDO=sudo; fi; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi
endef

deps:
	$(call install-missing,$(APT_PACKAGES))

bench-deps: deps
	$(call install-missing,$(BENCH_PACKAGES))

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build $(RELEASE_FLAGS)

# Swift Testing and XCTest, serially (no --parallel: its summary line disappears), then every
# fuzzer for 30 s.
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test
	$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=30

# Each fuzzer for FUZZ_SECONDS from the seeds in Fixtures/Fuzz (new inputs go to a scratch folder).
# A crash, a leak, an input taking over 5 s or 2 GB fails the target; its input is left in
# .build/fuzz/ and the log's tail is printed.
fuzz: deps
	@for t in $(FUZZ_TARGETS); do $(FUZZ_BUILD) --product fuzz-$$t >/dev/null || exit 1; done
	@for t in $(FUZZ_TARGETS); do \
		work="$$(mktemp -d)"; log=".build/fuzz/$$t.log"; \
		.build/fuzz/release/fuzz-$$t -max_total_time=$(FUZZ_SECONDS) -timeout=5 -rss_limit_mb=2048 \
			-artifact_prefix=.build/fuzz/$$t- "$$work" Fixtures/Fuzz/$$t > "$$log" 2>&1; status=$$?; \
		rm -rf "$$work"; \
		echo "fuzz-$$t: $$(grep -E '^Done' "$$log" | tail -n 1)"; \
		if [ $$status -ne 0 ]; then tail -n 40 "$$log"; exit $$status; fi; \
	done

demo: build
	@bash Scripts/demo.sh "$$($(SWIFT) build --show-bin-path)/keychainctl"

bench: bench-deps release
	@bin="$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)"; \
	work="$$(mktemp -d)"; \
	"$$bin/keychainctl-bench" "$$bin/keychainctl" "$$work" $(BENCH_RUNS); \
	status=$$?; rm -rf "$$work"; exit $$status

lint:
	$(SWIFT) format lint --recursive --strict Sources Tests Fuzz Package.swift

install: release
	install -d "$(PREFIX)/bin"
	install -m 0755 "$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/keychainctl" "$(PREFIX)/bin/keychainctl"

clean:
	rm -rf .build
