/**
 * `work` for every item, at most `lanes` at once, results in input order. On the first failure no lane starts
 * another item; the calls in flight finish, then the first error is thrown (nothing keeps running after we throw).
 */
export async function inLanes<T, R>(items: readonly T[], lanes: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const lane = async (): Promise<void> => {
    for (let i = next++; i < items.length && !failed; i = next++) results[i] = await work(items[i] as T);
  };
  const settled = await Promise.allSettled(
    Array.from({ length: Math.min(Math.max(1, lanes), items.length) }, () =>
      lane().catch((err: unknown) => {
        failed = true;
        throw err;
      }),
    ),
  );
  const rejection = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (rejection) throw rejection.reason;
  return results;
}
