/** "1 search", "2 searches": a number with its noun in the right grammatical number. */
export function nounCount(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
