/** Exit codes promised by the contract (shared/CONTRACT.md). */
export const EXIT = {
  ok: 0,
  failed: 1,
  config: 2,
  usage: 2,
  partial: 3,
} as const;
