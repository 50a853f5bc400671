# keychainctl — see README.md and CONTRIBUTING.md. Every target that builds installs what is missing first.
PREFIX ?= /usr/local
SWIFT ?= swift
APT_PACKAGES := libsodium-dev libsqlite3-dev libssl-dev libminizip-dev pkg-config
BENCH_PACKAGES := sqlite3 valgrind
# Tests drive a pseudo-terminal and edit keychain files as an attacker would, with Python; the
# sync tests share a cloud store through a git remote; the completion tests run zsh and fish; the
# release tests install from a file:// download folder with curl and strip with objcopy; get --clip
# is tried under a real X server with both clipboard tools; the GitHub Action's steps run under node;
# the ptrace attack on exec is compiled with cc; the man page is read back by groff.
TEST_PACKAGES := python3 python3-cryptography python3-dotenv openssl ca-certificates git zsh fish curl binutils xvfb xclip xsel nodejs gcc libc6-dev groff-base tmux
# The commit a release binary reports in --version (with -dirty for a tree with changes).
COMMIT := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(shell git rev-parse HEAD >/dev/null 2>&1 && { git diff --quiet HEAD 2>/dev/null || echo -dirty; })
# A fully static executable: no dynamic loader at start-up (find: 3.3 ms → 2.3 ms). Types'
# metadata reached through accessor functions and laid out by the compiler where it can, never
# built at run time from mangled names: demangling, and scanning every conformance record of the
# binary for each first Hashable or Equatable lookup, was a sixth of a find (find -12.4% of its
# instructions, add -10.5%, for 69 KB; the whole test suite passes against a binary built so:
# KEYCHAINCTL_BIN=… swift test).
METADATA_FLAGS := -Xswiftc -Xfrontend -Xswiftc -prespecialize-generic-metadata \
	-Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors
# Every function in a section of its own, and the code the everyday commands run laid out first,
# together, in the order Scripts/startup.order lists it (`make startup-order` rewrites it): a find
# then touches a few dense pages of code instead of a hundred scattered over 16 MB, each a page
# fault at start-up (see docs/PERFORMANCE.md for the figures). The option is gold's, the linker
# Swift uses on Linux, named so that a toolchain defaulting to another fails loudly, not slowly.
LAYOUT_FLAGS := -Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections \
	-Xswiftc -use-ld=gold -Xlinker --section-ordering-file=$(CURDIR)/Scripts/startup.order
RELEASE_FLAGS := -c release --static-swift-stdlib -Xswiftc -static-executable $(METADATA_FLAGS) $(LAYOUT_FLAGS) \
	-Xcc -DKEYCHAINCTL_COMMIT='"$(COMMIT)"'
# What `make dist` checks its Debian package with.
DIST_PACKAGES := lintian
BENCH_RUNS ?= 41
# The libFuzzer targets (Fuzz/targets), in one executable built with ASan into its own build
# folder (fuzz-all TARGET …); their seeds in Fixtures/Fuzz, which the test suite also replays.
FUZZ_TARGETS := profile archive arguments values formats objects store
FUZZ_SECONDS ?= 120
# Debug: from scratch it builds in 45 s where release took 115 s, and runs at half the speed
# while reaching more coverage points; FUZZ_CONFIG=release for a long run. lld links it: gold
# stops with an internal error on the sanitizer's symbols.
FUZZ_CONFIG ?= debug
FUZZ_BUILD := KEYCHAINCTL_FUZZ=1 $(SWIFT) build --build-path .build/fuzz -c $(FUZZ_CONFIG) \
	-Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld

.PHONY: all deps bench-deps build release install-sdk check-wrappers check check-small test demo bench startup-order lint install clean fuzz dist

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

# The command and the benchmark (the Security module's shared library is install-sdk's).
release: deps
	$(SWIFT) build $(RELEASE_FLAGS) --product keychainctl
	$(SWIFT) build $(RELEASE_FLAGS) --product keychainctl-bench

# The Security module for packages that do not depend on this one (docs/LIBRARY.md): its interface,
# its shared library with the engine inside, and PREFIX/share/keychainctl/swift-flags. Optimised, in
# a build folder of its own, where the engine links the shared C libraries (KEYCHAINCTL_SDK).
SDK_BUILD := KEYCHAINCTL_SDK=1 $(SWIFT) build -c release --build-path .build/sdk
install-sdk: deps
	$(SDK_BUILD) --product KeychainSecurity
	@Scripts/install-sdk.sh "$(PREFIX)" "$$($(SDK_BUILD) --show-bin-path)"

# The keychain wrappers' own suites against the installed SDK, as a package that cannot depend on
# this one builds them (Scripts/check-wrapper.sh): WRAPPERS is a folder holding their checkouts
# (keychain-swift, KeychainAccess, SwiftKeychainWrapper, Locksmith; this repository does not carry
# them). Each runs with --sdk; a failing suite fails the target.
SDK_CHECK_PREFIX := .build/sdk-check
check-wrappers: deps
	@test -n "$(WRAPPERS)" || { echo "usage: make check-wrappers WRAPPERS=FOLDER (git clone the wrappers Scripts/check-wrapper.sh names there)" >&2; exit 64; }
	$(MAKE) --no-print-directory install-sdk PREFIX="$(CURDIR)/$(SDK_CHECK_PREFIX)"
	@set -e; for checkout in "$(WRAPPERS)"/*/; do echo "== $$checkout"; Scripts/check-wrapper.sh --sdk "$(SDK_CHECK_PREFIX)" "$$checkout"; done

# The edit loop: every test (no --parallel: its summary line disappears), without the fuzzers.
check: deps
	$(call install-missing,$(TEST_PACKAGES))
	$(SWIFT) build --build-tests
	$(SWIFT) build --product KeychainSecurity
	$(SWIFT) test

# The small tests alone, in seconds: the test targets that run in process (KeychainCoreTests,
# SecurityTests); KeychainCLITests drives the real binary and takes minutes.
SMALL_TESTS := ^(KeychainCoreTests|SecurityTests)\.
check-small: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --filter '$(SMALL_TESTS)'

# What CI runs: every test, then every fuzz target for 15 s.
test: check
	$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=15

# Each fuzzer for FUZZ_SECONDS from the seeds in Fixtures/Fuzz and the corpus earlier runs grew in
# .build/fuzz/corpus (kept between runs, so each run starts where the last stopped; a CI cache of
# that folder carries it between jobs), FUZZ_JOBS of them at a time (libFuzzer runs on one core). A
# crash, a leak, a broken property, an input taking over 5 s or 2 GB fails the target; its input is
# left in .build/fuzz/ and the log's tail is printed. A target that left no status or no "Done"
# line (killed) fails too.
FUZZ_JOBS ?= 2
fuzz: deps
	@$(FUZZ_BUILD) --product fuzz-all >/dev/null || exit 1
	@rm -f .build/fuzz/*.status
	@printf '%s\n' $(FUZZ_TARGETS) | xargs -P $(FUZZ_JOBS) -I{} sh -c '\
		mkdir -p .build/fuzz/corpus/{}; \
		.build/fuzz/$(FUZZ_CONFIG)/fuzz-all {} -max_total_time=$(FUZZ_SECONDS) -timeout=5 -rss_limit_mb=2048 \
			-artifact_prefix=.build/fuzz/{}- .build/fuzz/corpus/{} Fixtures/Fuzz/{} > .build/fuzz/{}.log 2>&1; \
		echo $$? > .build/fuzz/{}.status'
	@failed=0; for t in $(FUZZ_TARGETS); do \
		log=".build/fuzz/$$t.log"; status="$$(cat .build/fuzz/$$t.status 2>/dev/null || echo 99)"; \
		done_line="$$(grep -E '^Done [0-9]+ runs' "$$log" | tail -n 1)"; \
		echo "fuzz-$$t: $${done_line:-no Done line}"; \
		if [ "$${status:-99}" -ne 0 ] || [ -z "$$done_line" ]; then tail -n 40 "$$log"; failed=1; fi; \
	done; exit $$failed

demo: build
	@bash Scripts/demo.sh "$$($(SWIFT) build --show-bin-path)/keychainctl"

bench: bench-deps release
	@bin="$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)"; \
	work="$$(mktemp -d)"; \
	"$$bin/keychainctl-bench" "$$bin/keychainctl" "$$work" $(BENCH_RUNS); \
	status=$$?; rm -rf "$$work"; exit $$status

# Rewrites Scripts/startup.order from the release binary (callgrind over the everyday commands),
# then removes the binary: SwiftPM does not relink when only the list changes.
startup-order: bench-deps release
	@bin="$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/keychainctl"; \
	python3 Scripts/startup-order.py "$$bin" && rm -f "$$bin"

lint:
	$(SWIFT) format lint --recursive --strict Sources Tests Fuzz Package.swift

# The binary, the helpers' links, its man page and its completions (Scripts/install-prefix.sh).
install: release
	@Scripts/install-prefix.sh "$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/keychainctl" "$(PREFIX)"

# The release files in dist/: the tarball, the .deb (checked by lintian, overrides documented in
# CONTRIBUTING.md) and SHA256SUMS, byte for byte the same for one commit (Scripts/dist.sh).
dist: release
	$(call install-missing,$(DIST_PACKAGES))
	@rm -rf dist
	@Scripts/dist.sh --bin "$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/keychainctl" dist
	lintian --fail-on error,warning dist/*.deb

clean:
	rm -rf .build dist
