import type { ChainableCommander } from 'ioredis';

/**
 * Runs a MULTI (or pipeline) and throws the first command's error: ioredis resolves `exec` with one error per failed
 * command, and a transaction applies its other commands all the same.
 */
export async function execBatch(batch: ChainableCommander): Promise<unknown[]> {
  const replies = (await batch.exec()) ?? [];
  const failed = replies.find(([err]) => err !== null);
  if (failed) throw failed[0];
  return replies.map(([, reply]) => reply);
}
