# Multi-stage build: compile the release binary (the page templates and the browser client's
# static files are built into it), then ship it alone in a small Debian image. No database is needed at build time
# (queries are checked by the tests against a real PostgreSQL, not by macros).
FROM rust:1-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked --bin oddboard

FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --home /app oddboard
WORKDIR /app
COPY --from=build /src/target/release/oddboard /usr/local/bin/oddboard
USER oddboard
# Every setting, and `oddboard admin` in the container: docs/operations.md.
ENV BIND_ADDR=0.0.0.0:8080 RUST_LOG=info
EXPOSE 8080
CMD ["oddboard", "serve"]
