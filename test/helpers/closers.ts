import { afterEach } from 'vitest';

/** A list the tests push closers onto; after each test they run last-first (servers before the Redis they use). */
export function closeAfterEach(): (() => Promise<unknown>)[] {
  const closers: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const close of closers.reverse()) await close();
    closers.length = 0;
  });
  return closers;
}
