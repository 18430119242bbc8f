# paimon-procedure-proxy as a sidecar next to a Doris FE.
#
#   docker build -t paimon-procedure-proxy .
#   # configured by environment:
#   docker run -p 9031:9031 -e PPP_UPSTREAM=fe-host:9030 -v /data/warehouse:/warehouse \
#     -e PPP_WAREHOUSE=/warehouse paimon-procedure-proxy
#   # or by file:
#   docker run -p 9031:9031 -v $PWD/config.yaml:/etc/paimon-procedure-proxy/config.yaml:ro \
#     -e PPP_CONFIG=/etc/paimon-procedure-proxy/config.yaml paimon-procedure-proxy
#
# The container listens on 0.0.0.0, so standalone mode (no FE) needs a users file with password
# hashes (users_file / PPP_USERS_FILE); the proxy refuses to start with a passwordless user there.

FROM node:20-bookworm-slim AS build
WORKDIR /app
# a C compiler for the native relay (native/build.mjs, run by npm ci)
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
COPY native ./native
RUN PPP_NATIVE_BUILD=required npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY protocol ./protocol
COPY procedures ./procedures
COPY src ./src
COPY tests ./tests
COPY bench ./bench
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    PPP_LISTEN_HOST=0.0.0.0 \
    PPP_LISTEN_PORT=9031
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/native/build ./native/build
RUN mkdir -p /warehouse /etc/paimon-procedure-proxy && chown node:node /warehouse
# the image's unprivileged user
USER node
EXPOSE 9031
ENTRYPOINT ["node", "dist/src/cli.js"]
CMD ["serve"]
