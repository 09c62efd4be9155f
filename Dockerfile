# `nl2sql serve` in a container: built from this folder, run as a user without privileges.
#
#   docker build -t nl2sql .
#   docker run -p 8787:8787 -e OPENAI_API_KEY -e NL2SQL_API_KEYS=admin:CHANGE-ME \
#     --user "$(id -u)" -v "$PWD:/project" nl2sql
#
# The mounted folder holds the project file (`nl2sql.toml`) and any database files it names
# by relative path; the server keeps its feedback and schema cache there, so it must be
# writable by the user the container runs as (10001 unless `--user` says). Secrets come from
# the environment only; nothing is baked into the image.

FROM rust:1.95-bookworm AS build
# protoc for the Spark Connect client's types; npm for the DuckDB library the build links
# (`@duckdb/node-bindings-linux-x64`, as `cargo xtask setup` gets it).
RUN apt-get update \
 && apt-get install -y --no-install-recommends protobuf-compiler nodejs npm \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN cargo build --release --locked -p nl2sql-cli \
 && mkdir -p /out/lib \
 && cp target/release/nl2sql /out/ \
 && cp node_modules/@duckdb/node-bindings-linux-x64/libduckdb.so /out/lib/

FROM debian:bookworm-slim
# ca-certificates for the model providers' HTTPS; curl for the health check.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates curl \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /project nl2sql
COPY --from=build /out/lib/libduckdb.so /usr/local/lib/
RUN ldconfig
COPY --from=build /out/nl2sql /usr/local/bin/nl2sql
USER nl2sql
WORKDIR /project
EXPOSE 8787
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s \
  CMD curl -fsS http://127.0.0.1:8787/healthz || exit 1
CMD ["nl2sql", "serve", "--listen", "0.0.0.0:8787", "--config", "/project/nl2sql.toml"]
