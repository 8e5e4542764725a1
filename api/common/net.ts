// IP and CIDR parsing for Node pod ranges and NetworkPolicy ipBlocks. Addresses become bigints so containment is
// a mask comparison for both families.
import { isIP } from 'node:net';

export interface Cidr {
  family: 4 | 6;
  prefix: number;
  /** The network address (host bits cleared). */
  network: bigint;
}

function ipToBigInt(ip: string, family: 4 | 6): bigint {
  if (family === 4) return ip.split('.').reduce((acc, o) => (acc << 8n) + BigInt(Number(o)), 0n);
  let text = ip;
  const v4 = text.match(/(\d+\.\d+\.\d+\.\d+)$/);
  if (v4) {
    const n = ipToBigInt(v4[1], 4);
    text = text.replace(v4[1], `${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`);
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  return groups.reduce((acc, g) => (acc << 16n) + BigInt(parseInt(g, 16)), 0n);
}

/** Parses `addr/prefix`; null when it is not a CIDR. The address may have host bits set (as Go's ParseCIDR allows). */
export function parseCidr(text: string): Cidr | null {
  const slash = text.indexOf('/');
  if (slash < 0) return null;
  const addr = text.slice(0, slash);
  const bitsText = text.slice(slash + 1);
  const family = isIP(addr);
  if ((family !== 4 && family !== 6) || !/^\d{1,3}$/.test(bitsText)) return null;
  const width = family === 4 ? 32 : 128;
  const prefix = Number(bitsText);
  if (prefix > width) return null;
  const mask = ((1n << BigInt(width)) - 1n) ^ ((1n << BigInt(width - prefix)) - 1n);
  return { family, prefix, network: ipToBigInt(addr, family) & mask };
}

/** True when `inner` lies strictly inside `outer` (same family, longer prefix, same leading bits). */
export function cidrStrictlyContains(outer: Cidr, inner: Cidr): boolean {
  if (outer.family !== inner.family || inner.prefix <= outer.prefix) return false;
  const width = outer.family === 4 ? 32 : 128;
  const mask = ((1n << BigInt(width)) - 1n) ^ ((1n << BigInt(width - outer.prefix)) - 1n);
  return (inner.network & mask) === outer.network;
}

export const CIDR_DETAIL = 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)';
