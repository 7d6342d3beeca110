const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * `chars` base64url chars (6 bits each, at most 10) of a 64-bit multiply-xorshift hash (cyrb53's mixing) of `text`,
 * low bits first. Not a cryptographic hash: change detection only has to tell a record's old values from its new
 * ones, and this is several times cheaper than a SHA on short input. `seed` keeps hashes of different kinds of text
 * apart.
 */
export function hashText(text: string, seed: number, chars: number): string {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  let out = '';
  for (let at = 0; at < 6 * chars; at += 6) {
    // Bits at..at+5 of h2:h1 (one char may take bits of both halves).
    const bits = at + 6 <= 32 ? h1 >>> at : at >= 32 ? h2 >>> (at - 32) : (h1 >>> at) | (h2 << (32 - at));
    out += B64URL[bits & 63]!;
  }
  return out;
}
