/** Exit codes promised by the contract (docs/contract.md; per command: docs/cli.md). */
export const EXIT = {
  ok: 0,
  failed: 1,
  config: 2,
  usage: 2,
  partial: 3,
} as const;
