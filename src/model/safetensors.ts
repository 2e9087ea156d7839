// The safetensors format (https://huggingface.co/docs/safetensors): an 8-byte little-endian
// header length N, N bytes of JSON ({name: {dtype, shape, data_offsets}}, optional
// "__metadata__" of string -> string), then the tensor bytes, tightly packed. We write F32;
// we read F32, F16, BF16 and F64 into f32. Every check the reference implementation makes
// is made here too, with a message that names the tensor and the problem.
import { showValue } from '../util/show';
import { tensorData, type TensorInfo, type TensorTable } from './params';

export class CheckpointError extends Error {
  override name = 'CheckpointError';
}

/** Byte sizes of every dtype the format defines; only FLOAT_DTYPES can be read as weights. */
const DTYPE_BYTES: Readonly<Record<string, number>> = {
  BOOL: 1, U8: 1, I8: 1, F8_E5M2: 1, F8_E4M3: 1,
  I16: 2, U16: 2, F16: 2, BF16: 2,
  I32: 4, U32: 4, F32: 4,
  I64: 8, U64: 8, F64: 8,
};
const FLOAT_DTYPES = ['F32', 'F16', 'BF16', 'F64'];

// The reference implementation refuses headers above 100 MB.
const MAX_HEADER_BYTES = 100_000_000;

const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

export interface NamedTensor {
  readonly name: string;
  readonly shape: readonly number[];
  readonly data: Float32Array;
}

export interface DecodedTensor {
  readonly dtype: string;
  readonly shape: readonly number[];
  /** The values as f32; null for integer or 8-bit float dtypes, which are never weights here. */
  readonly data: Float32Array | null;
}

export interface DecodedSafetensors {
  readonly tensors: ReadonlyMap<string, DecodedTensor>;
  readonly metadata: Readonly<Record<string, string>>;
}

const numel = (shape: readonly number[]): number => shape.reduce((a, b) => a * b, 1);
const fmtShape = (shape: readonly number[]): string => `[${shape.join(', ')}]`;

/** Writes F32 tensors, packed in the given order, with the header padded to 8 bytes. */
export function encodeSafetensors(tensors: readonly NamedTensor[], metadata: Readonly<Record<string, string>> = {}): Uint8Array {
  // No prototype: a tensor may be called "__proto__" or "constructor".
  const header = Object.create(null) as Record<string, unknown>;
  if (Object.keys(metadata).length > 0) header.__metadata__ = metadata;
  let pos = 0;
  const seen = new Set<string>(['__metadata__']);
  for (const t of tensors) {
    if (seen.has(t.name)) throw new CheckpointError(`safetensors: duplicate or reserved tensor name ${showValue(t.name)}`);
    seen.add(t.name);
    if (numel(t.shape) !== t.data.length) {
      throw new CheckpointError(`safetensors: tensor ${showValue(t.name)} has shape ${fmtShape(t.shape)} but ${t.data.length} values`);
    }
    header[t.name] = { dtype: 'F32', shape: [...t.shape], data_offsets: [pos, pos + 4 * t.data.length] };
    pos += 4 * t.data.length;
  }
  let json = new TextEncoder().encode(JSON.stringify(header));
  const padded = Math.ceil(json.length / 8) * 8;
  if (padded !== json.length) json = new TextEncoder().encode(JSON.stringify(header) + ' '.repeat(padded - json.length));
  const out = new Uint8Array(8 + json.length + pos);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  let at = 8 + json.length;
  for (const t of tensors) {
    writeF32(out, at, t.data);
    at += 4 * t.data.length;
  }
  return out;
}

function writeF32(out: Uint8Array, at: number, data: Float32Array): void {
  if (LITTLE_ENDIAN_HOST) {
    out.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), at);
    return;
  }
  const dv = new DataView(out.buffer, out.byteOffset);
  for (let i = 0; i < data.length; i++) dv.setFloat32(at + 4 * i, data[i], true);
}

interface HeaderEntry {
  name: string;
  dtype: string;
  shape: number[];
  begin: number;
  end: number;
}

/** Parses and checks the whole file; throws CheckpointError naming `what` and the problem. */
export function decodeSafetensors(bytes: Uint8Array, what = 'safetensors file'): DecodedSafetensors {
  if (bytes.length < 8) throw new CheckpointError(`${what}: file is ${bytes.length} bytes, too short for the 8-byte header length`);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = dv.getBigUint64(0, true);
  if (n > BigInt(bytes.length - 8)) {
    throw new CheckpointError(`${what}: header length ${n} is beyond the end of the file (${bytes.length - 8} bytes follow the length field)`);
  }
  const headerLen = Number(n);
  if (headerLen > MAX_HEADER_BYTES) throw new CheckpointError(`${what}: header length ${headerLen} exceeds the 100 MB limit`);
  const { entries, metadata } = parseHeader(bytes.subarray(8, 8 + headerLen), what);
  const data = bytes.subarray(8 + headerLen);
  checkOffsets(entries, data.length, what);
  const tensors = new Map<string, DecodedTensor>();
  for (const e of entries) {
    const raw = data.subarray(e.begin, e.end);
    tensors.set(e.name, { dtype: e.dtype, shape: e.shape, data: FLOAT_DTYPES.includes(e.dtype) ? toF32(raw, e.dtype) : null });
  }
  return { tensors, metadata };
}

function parseHeader(headerBytes: Uint8Array, what: string): { entries: HeaderEntry[]; metadata: Record<string, string> } {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(headerBytes);
  } catch {
    throw new CheckpointError(`${what}: header is not valid UTF-8`);
  }
  let header: unknown;
  try {
    header = JSON.parse(text);
  } catch (err) {
    throw new CheckpointError(`${what}: header is not JSON (${(err as Error).message})`);
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header)) {
    throw new CheckpointError(`${what}: header must be a JSON object of tensors`);
  }
  const entries: HeaderEntry[] = [];
  let metadata: Record<string, string> = {};
  for (const [name, value] of Object.entries(header as Record<string, unknown>)) {
    if (name === '__metadata__') metadata = parseMetadata(value, what);
    else entries.push(parseEntry(name, value, what));
  }
  return { entries, metadata };
}

function parseMetadata(value: unknown, what: string): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CheckpointError(`${what}: __metadata__ must be an object of strings`);
  }
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== 'string') throw new CheckpointError(`${what}: __metadata__[${showValue(k)}] is ${showValue(v)}, not a string`);
  }
  return value as Record<string, string>;
}

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

function parseEntry(name: string, value: unknown, what: string): HeaderEntry {
  const where = `${what}: tensor ${showValue(name)}`;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new CheckpointError(`${where}: entry must be an object`);
  const v = value as Record<string, unknown>;
  for (const key of Object.keys(v)) {
    if (!['dtype', 'shape', 'data_offsets'].includes(key)) throw new CheckpointError(`${where}: unexpected key ${showValue(key)} (allowed: dtype, shape, data_offsets)`);
  }
  const { dtype, shape, data_offsets: offs } = v;
  if (typeof dtype !== 'string' || !Object.hasOwn(DTYPE_BYTES, dtype)) {
    throw new CheckpointError(`${where}: unknown dtype ${showValue(dtype)} (known: ${Object.keys(DTYPE_BYTES).join(', ')})`);
  }
  if (!Array.isArray(shape) || !shape.every(isCount)) throw new CheckpointError(`${where}: shape ${showValue(shape)} must be an array of non-negative integers`);
  if (!Array.isArray(offs) || offs.length !== 2 || !offs.every(isCount)) {
    throw new CheckpointError(`${where}: data_offsets ${showValue(offs)} must be [begin, end] in bytes`);
  }
  const [begin, end] = offs as number[];
  if (end < begin) throw new CheckpointError(`${where}: data_offsets [${begin}, ${end}] end before they begin`);
  const need = numel(shape) * DTYPE_BYTES[dtype];
  if (end - begin !== need) {
    throw new CheckpointError(`${where}: shape ${fmtShape(shape)} of ${dtype} needs ${need} bytes but data_offsets [${begin}, ${end}] span ${end - begin}`);
  }
  return { name, dtype, shape: shape as number[], begin, end };
}

/** Offsets must lie in the data section and tile it exactly: no overlap, no gap, no tail. */
function checkOffsets(entries: readonly HeaderEntry[], dataLen: number, what: string): void {
  for (const e of entries) {
    if (e.end > dataLen) {
      throw new CheckpointError(`${what}: tensor ${showValue(e.name)} data_offsets [${e.begin}, ${e.end}] run past the data section (${dataLen} bytes)`);
    }
  }
  const sorted = [...entries].sort((a, b) => a.begin - b.begin || a.end - b.end);
  let pos = 0;
  let prev = '';
  for (const e of sorted) {
    if (e.begin < pos) {
      throw new CheckpointError(`${what}: tensor ${showValue(e.name)} data_offsets [${e.begin}, ${e.end}] overlap tensor ${showValue(prev)} (which ends at ${pos})`);
    }
    if (e.begin > pos) {
      throw new CheckpointError(`${what}: ${e.begin - pos} unused bytes before tensor ${showValue(e.name)} at ${pos}; safetensors data must be tightly packed`);
    }
    if (e.end > e.begin) [pos, prev] = [e.end, e.name];
  }
  if (pos !== dataLen) throw new CheckpointError(`${what}: ${dataLen - pos} trailing bytes after the last tensor (data section is ${dataLen} bytes, tensors end at ${pos})`);
}

function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

function toF32(raw: Uint8Array, dtype: string): Float32Array {
  const width = DTYPE_BYTES[dtype];
  const out = new Float32Array(raw.length / width);
  if (dtype === 'F32' && LITTLE_ENDIAN_HOST) {
    new Uint8Array(out.buffer).set(raw);
    return out;
  }
  const dv = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const bits = new Uint32Array(out.buffer);
  for (let i = 0; i < out.length; i++) {
    if (dtype === 'F32') out[i] = dv.getFloat32(4 * i, true);
    else if (dtype === 'F64') out[i] = dv.getFloat64(8 * i, true);
    else if (dtype === 'F16') out[i] = halfToFloat(dv.getUint16(2 * i, true));
    else bits[i] = dv.getUint16(2 * i, true) << 16; // BF16 is the top half of an f32
  }
  return out;
}

const listNames = (names: readonly string[], max = 6): string =>
  names.slice(0, max).join(', ') + (names.length > max ? `, ... (${names.length} in all)` : '');

/**
 * Checks that a file holds exactly the tensors of a table, with its shapes, as floats, and
 * copies them into a fresh buffer of table.totalFloats (padding 0).
 */
export function readTable(tensors: ReadonlyMap<string, DecodedTensor>, table: TensorTable, what: string): Float32Array {
  const missing = table.tensors.filter((t) => !tensors.has(t.name)).map((t) => t.name);
  if (missing.length > 0) throw new CheckpointError(`${what}: missing tensors for this config: ${listNames(missing)}`);
  const unexpected = [...tensors.keys()].filter((name) => !table.byName.has(name));
  if (unexpected.length > 0) {
    throw new CheckpointError(`${what}: unexpected tensors not in the layout for this config: ${listNames(unexpected)} (does the config match the file?)`);
  }
  const buf = new Float32Array(table.totalFloats);
  for (const t of table.tensors) tensorData(buf, t).set(tensorValues(tensors.get(t.name)!, t, what));
  return buf;
}

function tensorValues(d: DecodedTensor, t: TensorInfo, what: string): Float32Array {
  if (fmtShape(d.shape) !== fmtShape(t.shape)) {
    const flipped = t.shape.length === 2 && fmtShape(d.shape) === fmtShape([...t.shape].reverse());
    const hint = flipped ? ' (the transpose of the expected shape)' : '';
    throw new CheckpointError(`${what}: tensor ${showValue(t.name)} has shape ${fmtShape(d.shape)} in the file but the config needs ${fmtShape(t.shape)}${hint}`);
  }
  if (!d.data) throw new CheckpointError(`${what}: tensor ${showValue(t.name)} has dtype ${d.dtype}; weights must be ${FLOAT_DTYPES.join(', ')}`);
  return d.data;
}

/** The table's tensors as views into buf, in buffer order, ready for encodeSafetensors. */
export function tableTensors(table: TensorTable, buf: Float32Array): NamedTensor[] {
  if (buf.length !== table.totalFloats) {
    throw new CheckpointError(`parameter buffer has ${buf.length} floats but the tensor table needs ${table.totalFloats}`);
  }
  return table.tensors.map((t) => ({ name: t.name, shape: t.shape, data: tensorData(buf, t) }));
}
