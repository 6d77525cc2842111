# mmapzero's image for users who build with Docker (or podman build): the
# same contents as scripts/build-image, which needs no daemon. Two stages:
# the build on Debian 12 with scripts/install-deps, then the runtime
# libraries (deploy/image/runtime-packages, the list scripts/build-image
# uses), a non-root user mmapzero (uid 10001) and the six binaries.
#   docker build -t mmapzero:$(git describe --always) .
FROM debian:bookworm-slim AS build
WORKDIR /src
COPY scripts/install-deps scripts/install-deps
RUN apt-get update && apt-get install -y --no-install-recommends sudo \
    && scripts/install-deps && rm -rf /var/lib/apt/lists/*
COPY . .
RUN scripts/build /build --target mmapctl --target mmapzero-coordinator \
       --target mmapzero-replay --target mmapzero-learner \
       --target mmapzero-actor --target mmapzero-reanalyse \
    && strip --strip-debug /build/bin/mmapctl /build/bin/mmapzero-*

FROM debian:bookworm-slim
COPY deploy/image/runtime-packages /tmp/runtime-packages
RUN apt-get update \
    && grep -v '^#' /tmp/runtime-packages \
       | xargs apt-get install -y --no-install-recommends \
    && rm -rf /var/lib/apt/lists/* /tmp/runtime-packages \
    && groupadd --gid 10001 mmapzero \
    && useradd --uid 10001 --gid 10001 --home-dir /var/lib/mmapzero \
       --create-home --shell /usr/sbin/nologin mmapzero
COPY --from=build /build/bin/mmapctl /build/bin/mmapzero-coordinator \
     /build/bin/mmapzero-replay /build/bin/mmapzero-learner \
     /build/bin/mmapzero-actor /build/bin/mmapzero-reanalyse /usr/local/bin/
USER 10001:10001
WORKDIR /var/lib/mmapzero
CMD ["mmapctl", "--help"]
