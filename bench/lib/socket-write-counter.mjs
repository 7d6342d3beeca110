// Preloaded into a worker process (`WC_WORKER_NODE_OPTIONS=--import=<this file>`): counts socket writes to Redis
// (remote port $BENCH_REDIS_PORT, default 6379; one write = one round trip, pipelines included) and to everything else
// (HTTP), and at exit appends them to $BENCH_WRITES_FILE (JSON lines).
import { appendFileSync } from 'node:fs';
import net from 'node:net';

const file = process.env.BENCH_WRITES_FILE;
if (file) {
  const redisPort = Number(process.env.BENCH_REDIS_PORT ?? 6379);
  const counts = { redis: 0, other: 0 };
  const write = net.Socket.prototype.write;
  net.Socket.prototype.write = function countedWrite(...args) {
    counts[this.remotePort === redisPort ? 'redis' : 'other'] += 1;
    return write.apply(this, args);
  };
  process.on('exit', () =>
    appendFileSync(file, `${JSON.stringify({ args: process.argv.slice(2).join(' '), counts })}\n`),
  );
}
