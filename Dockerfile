# prospect-sync worker image (Node 24 LTS). Build: docker build -t prospect-sync .
# Run:  docker run --env-file .env -v $PWD/config:/app/config prospect-sync start
FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY jobs ./jobs
RUN npm run build

FROM node:24-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
# The pinned `node` dev dependency exists only for machines whose Node is too old; the image has Node 24 already.
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY config ./config
USER node
EXPOSE 3000
ENTRYPOINT ["node", "bin/prospect-sync.js"]
CMD ["start"]
