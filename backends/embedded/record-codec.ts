// The embedded backend's on-disk records. The log file is a sequence of frames:
//
//   [u32 LE payload length][u32 LE CRC-32 of length bytes + payload][payload: UTF-8 JSON]
//
// The checksum covers the length too, so a torn or zero-filled tail cannot pass for a frame. The file opens with a
// snapshot (a HEADER naming the compacted revision and how many snapshot records follow, the BASE objects live at
// that revision, then the writes after it) and continues with one write record per commit. Revisions travel as
// decimal strings because JSON numbers lose precision past 2^53.
import { crc32 } from 'node:zlib';
import type { KObject } from '../../api/meta/types.js';
import type { LogEntry, ReplayedWrite, WriteType } from '../memory/revision-history.js';
import { StorageError } from '../storage.js';

export const FRAME_HEADER_BYTES = 8;
/** Format version in the HEADER record; a file of another version is refused rather than misread. */
export const FORMAT_VERSION = 1;

export interface HeaderRecord {
  type: 'HEADER';
  format: number;
  compacted: string;
  /** BASE and write records that belong to the snapshot; a damaged frame among them is corruption, not a torn tail. */
  records: number;
}

export interface BaseRecord {
  type: 'BASE';
  key: string;
  object: KObject;
}

export interface WriteRecord {
  type: WriteType;
  revision: string;
  key: string;
  /** Commit time in ms since the epoch: the history window counts from it, also after a restart. */
  time: number;
  /** The new state; null for a deletion, whose last state the history rebuilds from the previous one. */
  object: KObject | null;
}

export type LogRecord = HeaderRecord | BaseRecord | WriteRecord;

export function frame(record: LogRecord): Buffer {
  const payload = Buffer.from(JSON.stringify(record));
  const out = Buffer.allocUnsafe(FRAME_HEADER_BYTES + payload.length);
  out.writeUInt32LE(payload.length, 0);
  payload.copy(out, FRAME_HEADER_BYTES);
  out.writeUInt32LE(crc32(payload, crc32(out.subarray(0, 4))), 4);
  return out;
}

export function writeRecord(entry: LogEntry): WriteRecord {
  return {
    type: entry.type,
    revision: entry.revision.toString(),
    key: entry.key,
    time: entry.time,
    object: entry.type === 'DELETED' ? null : entry.object,
  };
}

export interface ScannedFrames {
  payloads: Buffer[];
  /** Bytes up to the end of the last intact frame; anything after it is a torn tail. */
  validBytes: number;
}

/** Splits `data` into frame payloads, stopping at the first frame that is short or fails its checksum. */
export function scanFrames(data: Buffer): ScannedFrames {
  const payloads: Buffer[] = [];
  let offset = 0;
  while (offset + FRAME_HEADER_BYTES <= data.length) {
    const length = data.readUInt32LE(offset);
    const end = offset + FRAME_HEADER_BYTES + length;
    if (end > data.length) break;
    const payload = data.subarray(offset + FRAME_HEADER_BYTES, end);
    if (crc32(payload, crc32(data.subarray(offset, offset + 4))) !== data.readUInt32LE(offset + 4)) break;
    payloads.push(payload);
    offset = end;
  }
  return { payloads, validBytes: offset };
}

export function corrupt(message: string): StorageError {
  return new StorageError('Internal', `embedded storage log is corrupt: ${message}`);
}

function parse(payload: Buffer, index: number): LogRecord {
  try {
    return JSON.parse(payload.toString('utf8')) as LogRecord;
  } catch {
    // The checksum matched, so this is not a torn write: refuse to guess.
    throw corrupt(`record ${index} is not JSON`);
  }
}

export function decodeHeader(payload: Buffer | undefined): { compacted: bigint; records: number } {
  if (!payload) throw corrupt('the header record is missing or damaged');
  const record = parse(payload, 0);
  if (record.type !== 'HEADER') throw corrupt('the file does not start with a header');
  if (record.format !== FORMAT_VERSION)
    throw corrupt(`format ${record.format} is not supported (expected ${FORMAT_VERSION})`);
  if (!/^[1-9]\d*$/.test(record.compacted) || !Number.isSafeInteger(record.records) || record.records < 0)
    throw corrupt('bad header');
  return { compacted: BigInt(record.compacted), records: record.records };
}

export type DecodedRecord = { type: 'BASE'; key: string; object: KObject } | (ReplayedWrite & { type: WriteType });

/** A BASE or write record; anything else, or a malformed one, is corruption. */
export function decodeRecord(payload: Buffer, index: number): DecodedRecord {
  const record = parse(payload, index);
  const isObject = (v: unknown): v is KObject => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (record.type === 'BASE') {
    if (typeof record.key !== 'string' || !isObject(record.object))
      throw corrupt(`record ${index} is a malformed base object`);
    return { type: 'BASE', key: record.key, object: record.object };
  }
  const valid =
    (record.type === 'ADDED' || record.type === 'MODIFIED' || record.type === 'DELETED') &&
    typeof record.key === 'string' &&
    typeof record.revision === 'string' &&
    /^[1-9]\d*$/.test(record.revision) &&
    typeof record.time === 'number' &&
    (record.type === 'DELETED' ? record.object === null : isObject(record.object));
  if (!valid) throw corrupt(`record ${index} is not a write`);
  const write = record;
  return { type: write.type, revision: BigInt(write.revision), key: write.key, time: write.time, object: write.object };
}

/** The snapshot of `snapshot` as frames, produced lazily so a large store is written in slices. */
export function* snapshotFrames(snapshot: {
  compacted: bigint;
  base: readonly { key: string; object: KObject }[];
  entries: readonly LogEntry[];
}): Generator<Buffer> {
  const records = snapshot.base.length + snapshot.entries.length;
  yield frame({ type: 'HEADER', format: FORMAT_VERSION, compacted: snapshot.compacted.toString(), records });
  for (const { key, object } of snapshot.base) yield frame({ type: 'BASE', key, object });
  for (const entry of snapshot.entries) yield frame(writeRecord(entry));
}
