# Wraps CMake (as DuckDB does). `make run` and `make test` are the README's two commands.
BUILD_DIR ?= build
WERROR ?= OFF
JOBS ?= $(shell nproc)
DEBIAN_PACKAGES = cmake g++ make libboost-dev libtbb-dev libfmt-dev catch2 libbenchmark-dev \
                  libyaml-cpp-dev nlohmann-json3-dev libcli11-dev
# Only `make test` needs these: the HTML report opened in headless Chromium, the trace checked
# against its JSON schema (tests/report/).
TEST_DEBIAN_PACKAGES = chromium python3 python3-jsonschema

.PHONY: deps test-deps configure build run test bench asan clean format

# Installs only what is missing, so a machine that has everything never touches apt.
deps:
	@$(MAKE) --no-print-directory install-missing PACKAGES="$(DEBIAN_PACKAGES)"

test-deps:
	@$(MAKE) --no-print-directory install-missing PACKAGES="$(TEST_DEBIAN_PACKAGES)"

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
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release -DCKPTSIM_WERROR=$(WERROR)

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

run: build
	./$(BUILD_DIR)/bin/ckptsim run

test: build test-deps
	./$(BUILD_DIR)/bin/ckptsim_tests
	./$(BUILD_DIR)/bin/ckptsim test scenarios
	./tests/report/run_checks.sh $(BUILD_DIR)

bench: build
	./$(BUILD_DIR)/bin/ckptsim_bench

asan: deps
	cmake --preset asan && cmake --build --preset asan -j $(JOBS) && ./build-asan/bin/ckptsim_tests

format:
	find sim analysis tests bench -name '*.[ch]pp' | xargs clang-format -i

clean:
	rm -rf $(BUILD_DIR) build-asan build-tsan

# The Debian package and a single-node Slurm cluster (issue 18 items 11-12). Not run by
# `make test`: test-slurm starts root daemons (munge, slurmctld, slurmd) and test-package a
# debootstrap chroot; .ci/run calls `make test-dist` after `make test`. Details: README.md.
PACKAGE_DEBIAN_PACKAGES = dpkg-dev debootstrap
SLURM_DEBIAN_PACKAGES = slurm-wlm munge

.PHONY: package-deps slurm-deps package test-package test-slurm test-dist
package-deps:
	@$(MAKE) --no-print-directory install-missing PACKAGES="$(PACKAGE_DEBIAN_PACKAGES)"

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

test-dist: test-package test-slurm

# The image the Kubernetes template in docs/sweeps.md names (Dockerfile: Debian 12 + the package).
.PHONY: docker-image
docker-image: package
	docker build -t ckptsim:latest .
