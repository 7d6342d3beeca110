/**
 * Two opaque cursor encodings (so clients cannot come to depend on one). Both are base64url, versioned, at most
 * 200 characters, and carry the journey position plus the body fingerprint they are bound to.
 *  - json-v1: base64url of {"v":1,"s":slot,"n":returned,"e":churnEpoch,"f":fingerprint,"l":pageSize}
 *  - compact-v2: base64url of 23 bytes: version 2, slot, returned, epoch (uint32 BE), fingerprint (8 bytes),
 *    page size (1 byte), checksum
 */
import type { CursorStyle } from './types.js';

export interface CursorState {
  /** Next slot to scan. */
  slot: number;
  /** Records returned so far in the journey. */
  returned: number;
  /** Churn events already reflected in `slot`. */
  epoch: number;
  fingerprint: string;
  /** The journey's page size: the `limit` of its first page. */
  pageSize: number;
}

export type DecodeResult =
  { ok: true; state: CursorState } | { ok: false; reason: 'malformed' | 'unsupported_version' };

const B64URL = /^[A-Za-z0-9_-]+$/;
const HEX16 = /^[0-9a-f]{16}$/;

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 0xffffffff;
}

function encodeV1(s: CursorState): string {
  return Buffer.from(
    JSON.stringify({ v: 1, s: s.slot, n: s.returned, e: s.epoch, f: s.fingerprint, l: s.pageSize }),
  ).toString('base64url');
}

function decodeV1(raw: Buffer): DecodeResult {
  let obj: unknown;
  try {
    obj = JSON.parse(raw.toString('utf8'));
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (typeof obj !== 'object' || obj === null) return { ok: false, reason: 'malformed' };
  const o = obj as Record<string, unknown>;
  if (o.v !== 1) return { ok: false, reason: o.v === undefined ? 'malformed' : 'unsupported_version' };
  if (!isCount(o.s) || !isCount(o.n) || !isCount(o.e) || typeof o.f !== 'string' || !HEX16.test(o.f)) {
    return { ok: false, reason: 'malformed' };
  }
  if (!isPageSize(o.l)) return { ok: false, reason: 'malformed' };
  return { ok: true, state: { slot: o.s, returned: o.n, epoch: o.e, fingerprint: o.f, pageSize: o.l } };
}

function isPageSize(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= 100;
}

function checksum(buf: Buffer, len: number): number {
  let x = 0x5a;
  for (let i = 0; i < len; i++) x = (x * 31 + buf[i]!) & 0xff;
  return x;
}

function encodeV2(s: CursorState): string {
  const buf = Buffer.alloc(23);
  buf[0] = 2;
  buf.writeUInt32BE(s.slot, 1);
  buf.writeUInt32BE(s.returned, 5);
  buf.writeUInt32BE(s.epoch, 9);
  buf.write(s.fingerprint, 13, 'hex');
  buf[21] = s.pageSize;
  buf[22] = checksum(buf, 22);
  return buf.toString('base64url');
}

function decodeV2(raw: Buffer): DecodeResult {
  if (raw.length < 1) return { ok: false, reason: 'malformed' };
  if (raw[0] !== 2) return { ok: false, reason: 'unsupported_version' };
  if (raw.length !== 23 || raw[22] !== checksum(raw, 22) || !isPageSize(raw[21]))
    return { ok: false, reason: 'malformed' };
  return {
    ok: true,
    state: {
      slot: raw.readUInt32BE(1),
      returned: raw.readUInt32BE(5),
      epoch: raw.readUInt32BE(9),
      fingerprint: raw.toString('hex', 13, 21),
      pageSize: raw[21]!,
    },
  };
}

export function encodeCursor(style: CursorStyle, state: CursorState): string {
  return style === 'json-v1' ? encodeV1(state) : encodeV2(state);
}

/** A cursor of the other style is an unsupported version for this instance. */
export function decodeCursor(style: CursorStyle, cursor: string): DecodeResult {
  if (!B64URL.test(cursor)) return { ok: false, reason: 'malformed' };
  const raw = Buffer.from(cursor, 'base64url');
  const looksJson = raw[0] === 0x7b;
  if (style === 'json-v1')
    return looksJson
      ? decodeV1(raw)
      : raw[0] === 2
        ? { ok: false, reason: 'unsupported_version' }
        : { ok: false, reason: 'malformed' };
  return looksJson ? { ok: false, reason: 'unsupported_version' } : decodeV2(raw);
}
