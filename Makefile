# OpLab: the two quick-start commands are `make run` and `make test`.
# Both install libedit's headers first when pkg-config cannot find them.

SWIFT ?= swift
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run test test-long test-swift test-tsan build release deps clean snapshots lesson bench fuzz install uninstall format

# The folder of the built binaries (a test passes its own, with SWIFT=: to skip building).
BIN ?= $$($(SWIFT) build --show-bin-path)

## run: install what is missing, build, and start the lab
run: deps
	@$(SWIFT) build --product oplab
	@"$(BIN)/oplab" $(ARGS)

## lesson: start (or resume) a lesson of the course: make lesson N=1
N ?= 1
lesson: deps
	@$(SWIFT) build --product oplab
	@"$(BIN)/oplab" lesson $(N)

## test: install what is missing, then run every test but those that build Swift programs
## with swiftc (make test-swift), each seeded sweep on a share of its worlds (make test-long
## runs them whole). The differential tests (real OperationQueue in scaled real time) run on
## their own, so no other test competes with them for libdispatch's worker threads.
test: deps
	$(SWIFT) build --build-tests
	@echo "benchmark harness on a tiny world (the figures come from make bench):"
	"$$($(SWIFT) build --show-bin-path)/oplab-bench" --ops 300 --compare
	OPLAB_SWIFTC=deferred $(SWIFT) test --skip-build --skip 'OpLabDifferentialTests|$(SWIFTC_TESTS)'
	OPLAB_SWIFTC=deferred $(SWIFT) test --skip-build --filter OpLabDifferentialTests --skip '$(SWIFTC_TESTS)'

# The tests that build and run Swift programs with swiftc: the exports of the lab's worlds,
# the lessons' Swift exercises and code blocks, Thread Sanitizer runs. Each build takes
# seconds of a core, so make test leaves them to make test-swift (and CI's make test-long);
# under make test (OPLAB_SWIFTC=deferred) a test that calls swiftc but is not named here fails.
SWIFTC_SHELL := ExerciseTests|SwiftPackageExportTests|LessonCodeTests/lessonCodeCompiles|LessonExportTests/exportCompiles|RacesCommandTests/exportCompiles
SWIFTC_SHELL := $(SWIFTC_SHELL)|Swift(Code|CodeRun|Name)Tests/(exportCompiles|compiles|exportEveryCommandCompiles|failingAsync|shownProgramDoesAllTheWork|sourcedAndEchoedCodeIsAsIs|namesThatCollided|randomNamesCompile)
SWIFTC_DIFFERENTIAL := DifferentialTests/(exported|exportsAgreeWithTheLab|threadSanitizer|mainThreadTakesWork)
SWIFTC_TESTS := $(SWIFTC_SHELL)|$(SWIFTC_DIFFERENTIAL)

## test-long: what make test leaves to CI: every seeded sweep whole (OPLAB_LONG_TESTS=1),
## make test-swift with the export of every world, then make install into a scratch PREFIX
## and the installed oplab used from another folder (a release build)
test-long: deps
	$(SWIFT) build --build-tests
	OPLAB_LONG_TESTS=1 $(SWIFT) test --skip-build --filter 'RandomSweepTests|DeferredSharesTests|DiagnosisCountTests'
	OPLAB_SWIFT_SWEEP=full $(MAKE) --no-print-directory test-swift SWIFT_BUILT=1
	@echo "make install into a scratch PREFIX, then the installed oplab from another folder:"
	Scripts/check-install.sh

## test-swift: the tests that build Swift programs with swiftc (SWIFTC_TESTS above): the
## lessons' Swift exercises (each starting file fails, each solution passes) and code
## blocks, the package export, Thread Sanitizer on lesson 13's taps and a race-free world,
## and the export sweep, its programs built with plain swiftc and under Swift 6's strictest
## checking and run against the lab: a representative ten worlds, or with
## OPLAB_SWIFT_SWEEP=full every example, every lesson world and 30 seeded random worlds
test-swift: deps
	$(if $(SWIFT_BUILT),,$(SWIFT) build --build-tests)
	$(SWIFT) test --skip-build --filter '$(SWIFTC_SHELL)'
	$(SWIFT) test --skip-build --filter '$(SWIFTC_DIFFERENTIAL)'

## test-tsan: the Swift export of every world of the export sweep built with
## swiftc -sanitize=thread and run: no report for a race-free world, and for a racy one
## (lesson 13's two taps, random worlds) a data race on each variable the lab's `races` names
test-tsan: deps
	$(SWIFT) build --build-tests
	OPLAB_TSAN=full $(SWIFT) test --skip-build --filter threadSanitizer

## format: lay out every Swift file by .swift-format (swift-format ships with the toolchain)
format:
	$(SWIFT) format format --in-place --recursive --configuration .swift-format Package.swift Sources Tests Fuzz

## snapshots: re-record the golden files of rendered text (then review `git diff`)
snapshots: deps
	-RECORD_SNAPSHOTS=1 $(SWIFT) test --filter 'OpLabRenderTests|WidthGoldenTests'
	$(SWIFT) test --filter 'OpLabRenderTests|WidthGoldenTests'

## bench: the release-build benchmark (see BENCHMARKS.md): make bench OPS=1000000
OPS ?= 100000
bench: deps
	$(SWIFT) build -c release --product oplab-bench
	"$$($(SWIFT) build -c release --show-bin-path)/oplab-bench" --ops $(OPS) --compare

## fuzz: libFuzzer on the parser, the interpreter and the lesson parser (see Fuzz/README.md):
## make fuzz SECONDS=600 [TARGET=parser|interpreter|lesson|all]
SECONDS ?= 60
TARGET ?= all
fuzz:
	Fuzz/fuzz.sh $(TARGET) $(SECONDS)

## install: a release build as a command: PREFIX/bin/oplab (PREFIX defaults to ~/.local),
## its lessons and examples in PREFIX/share/oplab, shell completions for bash, zsh and fish,
## and a man page. make install PREFIX=/usr/local (as root), then `oplab lesson` anywhere.
## Scripts/install.sh does it, reading PREFIX, DESTDIR and SWIFT from the environment, never
## pasted into shell text, so a PREFIX holding blanks or quotes is still one folder.
PREFIX ?= $(HOME)/.local
export PREFIX DESTDIR SWIFT
install: deps
	@Scripts/install.sh install

## uninstall: removes what make install put under PREFIX
uninstall:
	@Scripts/install.sh uninstall

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

## deps: libedit-dev (and pkg-config) through apt-get, only when absent
deps:
	@if ! pkg-config --exists libedit 2>/dev/null; then \
	  if command -v apt-get >/dev/null 2>&1; then \
	    echo "oplab: installing libedit-dev (needed for line editing)"; \
	    $(SUDO) apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq pkg-config libedit-dev >/dev/null; \
	  elif [ "$$(uname)" = Darwin ]; then \
	    : "macOS ships libedit with the SDK"; \
	  else \
	    echo "oplab: please install libedit's development package (libedit-dev)" >&2; exit 1; \
	  fi; \
	fi

clean:
	rm -rf .build
