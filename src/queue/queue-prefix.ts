/**
 * The BullMQ key prefix, apart from the queue objects: the one-shot commands (`run`, `plan`, ...) need the prefix
 * but not BullMQ itself. Tests pass a unique one. For Redis Cluster use a hash-tagged prefix such as `{prospect-sync}`.
 */
export const DEFAULT_QUEUE_PREFIX = 'prospect-sync';

export function queuePrefix(env: NodeJS.ProcessEnv = process.env): string {
  return env.QUEUE_PREFIX ?? DEFAULT_QUEUE_PREFIX;
}
