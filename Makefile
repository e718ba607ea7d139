# Wraps CMake (as DuckDB does). `make run` and `make test` are the README's two commands.
# `make run` builds only the ckptsim executable, quietly; `make test` builds everything and runs
# every stage CI runs: the tests, the report checks, the suite under ASan+UBSan, the parallel
# commands and the server under TSan, and a short smoke run of each fuzz target.
BUILD_DIR ?= build
WERROR ?= OFF
JOBS ?= $(shell nproc)
FUZZ_SECONDS ?= 600
FUZZ_SMOKE_SECONDS ?= 20
# ccache when the machine has it (CI's clean checkout may not).
LAUNCHER := $(if $(shell command -v ccache 2>/dev/null),-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
# CMake's generated makefiles are sub-makes: no "Entering directory" lines.
MAKEFLAGS += --no-print-directory

DEBIAN_PACKAGES = cmake g++ make libboost-dev libtbb-dev libfmt-dev catch2 libbenchmark-dev \
                  libyaml-cpp-dev nlohmann-json3-dev libcli11-dev
# Only `make test` needs these: the HTML report opened in headless Chromium, the trace checked
# against its JSON schema (tests/report/); `ckptsim serve` against curl, a real Prometheus and
# wrk (tests/server/); clang and its libFuzzer runtime for tests/fuzz.
TEST_DEBIAN_PACKAGES = chromium python3 python3-jsonschema curl prometheus wrk
FUZZ_DEBIAN_PACKAGES = clang libclang-rt-14-dev

.PHONY: deps test-deps fuzz-deps configure build run test test-release bench asan tsan \
        fuzz-build fuzz fuzz-smoke clean format

# Installs only what is missing, so a machine that has everything never touches apt.
deps:
	@$(MAKE) install-missing PACKAGES="$(DEBIAN_PACKAGES)"

test-deps:
	@$(MAKE) install-missing PACKAGES="$(TEST_DEBIAN_PACKAGES)"

fuzz-deps:
	@$(MAKE) install-missing PACKAGES="$(FUZZ_DEBIAN_PACKAGES)"

.PHONY: install-missing
install-missing:
	@missing=""; for p in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

configure: deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release -DCKPTSIM_WERROR=$(WERROR) $(LAUNCHER)

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

# Only the executable it runs; the build's output goes to a log, shown if the build fails.
run: deps
	@mkdir -p $(BUILD_DIR)
	@[ -x $(BUILD_DIR)/bin/ckptsim ] || echo "building ckptsim in $(BUILD_DIR)/ (a few minutes the first time; log: $(BUILD_DIR)/build.log)"
	@{ cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release -DCKPTSIM_WERROR=$(WERROR) $(LAUNCHER) && \
	   cmake --build $(BUILD_DIR) -j $(JOBS) --target ckptsim; } >$(BUILD_DIR)/build.log 2>&1 || \
	 { tail -n 60 $(BUILD_DIR)/build.log; echo "make run: the build failed, see $(BUILD_DIR)/build.log"; exit 1; }
	@./$(BUILD_DIR)/bin/ckptsim run

# Every stage, one after the other (each builds with all cores); CI (.ci/run) runs this.
test:
	@$(MAKE) test-release
	@$(MAKE) asan
	@$(MAKE) tsan
	@$(MAKE) fuzz-smoke

# The Release build's tests alone (the quick loop while working).
# Tests write under $TMPDIR with fixed names: each build directory gets its own, so two suites
# (Release and ASan, or two checkouts) never share one.
test-release: build test-deps
	mkdir -p $(BUILD_DIR)/tmp && TMPDIR=$(abspath $(BUILD_DIR))/tmp ./$(BUILD_DIR)/bin/ckptsim_tests
	./$(BUILD_DIR)/bin/ckptsim test scenarios
	./tests/report/run_checks.sh $(BUILD_DIR)
	./tests/server/run_clients.sh $(BUILD_DIR)

bench: build
	./$(BUILD_DIR)/bin/ckptsim_bench

# The Catch2 suite built with AddressSanitizer and UBSan (g++; any report fails the run).
# Sanitizer builds never use -Werror: instrumentation makes g++ 12 warn falsely inside libstdc++
# (-Wnull-dereference in std::string under -fsanitize=thread); the Release build checks warnings.
asan: deps
	cmake --preset asan $(LAUNCHER)
	cmake --build --preset asan -j $(JOBS) --target ckptsim_tests
	mkdir -p build-asan/tmp && TMPDIR=$(CURDIR)/build-asan/tmp \
	  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ./build-asan/bin/ckptsim_tests

# ThreadSanitizer over what runs in parallel: ckptsim test, sweep and compare with 2 threads, and
# ckptsim serve with clients (tests/tsan/run.sh). Debian's TBB is not built with TSan, so this
# build runs the parallel loop on std::threads (sim/cli/parallel_runs.hpp).
tsan: deps test-deps
	cmake --preset tsan $(LAUNCHER)
	cmake --build --preset tsan -j $(JOBS) --target ckptsim
	./tests/tsan/run.sh build-tsan

# libFuzzer targets (tests/fuzz/README.md): clang, its own build directory.
fuzz-build: deps fuzz-deps
	cmake --preset fuzz $(LAUNCHER)
	cmake --build --preset fuzz -j $(JOBS)

# Each target for FUZZ_SECONDS (default 10 min); `make fuzz FUZZ_SECONDS=60`.
fuzz: fuzz-build
	./tests/fuzz/run.sh build-fuzz $(FUZZ_SECONDS)

fuzz-smoke: fuzz-build
	./tests/fuzz/run.sh build-fuzz $(FUZZ_SMOKE_SECONDS)

format:
	find sim analysis tests bench -name '*.[ch]pp' | xargs clang-format -i

clean:
	rm -rf $(BUILD_DIR) build-asan build-tsan build-fuzz

# The Debian package, its Docker image and a single-node Slurm cluster (issue 18 items 11-12).
# Not run by `make test`: test-slurm starts root daemons (munge, slurmctld, slurmd), test-package
# a debootstrap chroot, test-docker dockerd; .ci/run calls `make test-dist` after `make test`.
# Details: README.md.
PACKAGE_DEBIAN_PACKAGES = dpkg-dev debootstrap
SLURM_DEBIAN_PACKAGES = slurm-wlm munge
DOCKER_DEBIAN_PACKAGES = docker.io debootstrap

.PHONY: package-deps slurm-deps docker-deps package test-package test-slurm test-docker test-dist
package-deps:
	@$(MAKE) --no-print-directory install-missing PACKAGES="$(PACKAGE_DEBIAN_PACKAGES)"

docker-deps:
	@$(MAKE) --no-print-directory install-missing PACKAGES="$(DOCKER_DEBIAN_PACKAGES)"

slurm-deps:
	@$(MAKE) --no-print-directory install-missing PACKAGES="$(SLURM_DEBIAN_PACKAGES)"

# build/package/ckptsim_<version>_<arch>.deb: the binary, its man page, the scenarios, the docs.
package: configure package-deps
	cmake --build $(BUILD_DIR) -j $(JOBS) --target ckptsim ckptsim_man
	cd $(BUILD_DIR) && cpack -G DEB

test-package: package
	./tests/package/run_test.sh $(BUILD_DIR)

test-slurm: configure slurm-deps
	cmake --build $(BUILD_DIR) -j $(JOBS) --target ckptsim
	./tests/slurm/run_test.sh $(BUILD_DIR)

# The Dockerfile built and run (starts dockerd when no engine answers): tests/docker/run_test.sh.
test-docker: package docker-deps
	./tests/docker/run_test.sh $(BUILD_DIR)

test-dist: test-package test-slurm test-docker

# The image the Kubernetes template in docs/sweeps.md names (Dockerfile: Debian 12 + the package).
.PHONY: docker-image
docker-image: package
	docker build -t ckptsim:latest .
