/**
 * Pipelines an async iterable: while the consumer works on item n, item n+1 (up to `depth` items) is already being
 * produced. Used to fetch page n+1 while page n is written to the CRM. An error of the producer surfaces when the
 * consumer reaches it; stopping early (break/throw) closes the source once its in-flight item is answered.
 */
export async function* prefetch<T>(source: AsyncIterable<T>, depth = 1): AsyncGenerator<T> {
  const it = source[Symbol.asyncIterator]();
  const ahead: Promise<IteratorResult<T>>[] = [];
  let finished = false;
  const pull = (): void => {
    if (finished) return;
    const next = it.next();
    ahead.push(next);
    // Stop pulling once the source ended or failed; the rejection is re-raised to the consumer in order.
    next.then(
      (r) => {
        if (r.done) finished = true;
      },
      () => {
        finished = true;
      },
    );
  };
  try {
    pull();
    for (;;) {
      const head = ahead.shift();
      if (!head) return;
      const r = await head;
      if (r.done) return;
      while (ahead.length < depth && !finished) pull();
      yield r.value;
      if (ahead.length === 0) pull();
    }
  } finally {
    // Let an in-flight fetch end before closing, so its result (tokens spent) is not left dangling.
    await Promise.allSettled(ahead);
    await it.return?.();
  }
}
