# ckptsim on Debian 12, from the package `make package` builds; the image the Kubernetes
# template in docs/sweeps.md runs. From the repository root: `make docker-image` (builds the
# package, then runs `docker build -t ckptsim:latest .`).
FROM debian:12-slim
COPY build/package/ckptsim_*_amd64.deb /tmp/
# apt-get installs the package's Depends from Debian and the package with dpkg.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends /tmp/ckptsim_*.deb \
 && rm -rf /var/lib/apt/lists/* /tmp/ckptsim_*.deb \
 && ckptsim --version
WORKDIR /work
CMD ["ckptsim", "--help"]
