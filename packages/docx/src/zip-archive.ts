import { crc32, deflateRawSync, inflateRawSync } from 'node:zlib';

/**
 * The ZIP container of a DOCX, read and written without a third-party zip library: reading checks
 * every limit from the central directory BEFORE anything is inflated, and inflates each entry with
 * a hard output cap, so a zip bomb or a lying size field stops at the cap. Writing uses the native
 * deflate (several times faster than a JavaScript one on multi-megabyte document parts).
 *
 * PizZip stays beside it for another job: docxtemplater renders only a PizZip object, so
 * render-template-docx.ts hands it the files this reader has already checked (PizZip itself
 * inflates whatever an archive claims, so it never reads an upload). Tests read our writer's
 * output with PizZip too: an independent reader, not this code reading back what it wrote.
 */

export interface ZipLimits {
  maxEntries: number;
  maxEntryBytes: number;
  maxTotalBytes: number;
}

export class ZipFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ZipFormatError';
  }
}

interface CentralEntry {
  name: string;
  method: number;
  flags: number;
  compressedSize: number;
  size: number;
  crc: number;
  localOffset: number;
}

function readCentralDirectory(zip: Uint8Array, limits: ZipLimits): CentralEntry[] {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  // The end-of-central-directory record sits in the last 22 + 65535 bytes (its comment is at most 64 KB).
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 65535); i--) {
    if (view.getUint32(i, true) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new ZipFormatError('not a ZIP file (no end of central directory)');
  const count = view.getUint16(eocd + 10, true);
  const cdSize = view.getUint32(eocd + 12, true);
  const cdOffset = view.getUint32(eocd + 16, true);
  if (count === 0xffff || cdOffset === 0xffffffff) throw new ZipFormatError('ZIP64 archives are not accepted');
  if (count > limits.maxEntries)
    throw new ZipFormatError(`the archive has ${count} entries; at most ${limits.maxEntries} are accepted`);
  if (cdOffset + cdSize > eocd) throw new ZipFormatError('the central directory lies outside the file');
  const entries: CentralEntry[] = [];
  const decoder = new TextDecoder('utf-8', { fatal: false });
  let at = cdOffset;
  let total = 0;
  for (let n = 0; n < count; n++) {
    if (at + 46 > zip.length || view.getUint32(at, true) !== 0x02014b50)
      throw new ZipFormatError('a central directory entry is damaged');
    const flags = view.getUint16(at + 8, true);
    const method = view.getUint16(at + 10, true);
    const crc = view.getUint32(at + 16, true);
    const compressedSize = view.getUint32(at + 20, true);
    const size = view.getUint32(at + 24, true);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const localOffset = view.getUint32(at + 42, true);
    const name = decoder.decode(zip.subarray(at + 46, at + 46 + nameLength));
    at += 46 + nameLength + extraLength + commentLength;
    if (flags & 0x1) throw new ZipFormatError(`entry "${name}" is encrypted`);
    if (method !== 0 && method !== 8)
      throw new ZipFormatError(
        `entry "${name}" uses compression method ${method}; only stored and deflate are accepted`,
      );
    if (size > limits.maxEntryBytes)
      throw new ZipFormatError(
        `entry "${name}" unpacks to ${size} bytes; at most ${limits.maxEntryBytes} are accepted per entry`,
      );
    total += size;
    if (total > limits.maxTotalBytes)
      throw new ZipFormatError(`the archive unpacks to more than ${limits.maxTotalBytes} bytes`);
    entries.push({ name, method, flags, compressedSize, size, crc, localOffset });
  }
  return entries;
}

/** The entry names of an archive, from its central directory only (nothing inflated). */
export function listZipEntries(zip: Uint8Array, limits: ZipLimits): Array<{ name: string; size: number }> {
  return readCentralDirectory(zip, limits).map((e) => ({ name: e.name, size: e.size }));
}

/** Every file of an archive (directories skipped), inflated with the declared size as a hard cap and checked by CRC. */
export function readZip(zip: Uint8Array, limits: ZipLimits): Map<string, Uint8Array> {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const files = new Map<string, Uint8Array>();
  for (const e of readCentralDirectory(zip, limits)) {
    if (e.name.endsWith('/')) continue;
    const at = e.localOffset;
    if (at + 30 > zip.length || view.getUint32(at, true) !== 0x04034b50)
      throw new ZipFormatError(`entry "${e.name}" has no local header`);
    const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
    if (start + e.compressedSize > zip.length)
      throw new ZipFormatError(`entry "${e.name}" runs past the end of the file`);
    const raw = zip.subarray(start, start + e.compressedSize);
    let data: Uint8Array;
    if (e.method === 0) data = raw;
    else {
      try {
        // Why maxOutputLength: the declared size can lie; inflating stops there instead of filling memory.
        data = inflateRawSync(raw, { maxOutputLength: Math.max(1, e.size) });
      } catch (err) {
        throw new ZipFormatError(`entry "${e.name}" does not inflate to its declared size (${(err as Error).message})`);
      }
    }
    if (data.length !== e.size)
      throw new ZipFormatError(`entry "${e.name}" is ${data.length} bytes, not the ${e.size} its header says`);
    if (crc32(data) >>> 0 !== e.crc >>> 0) throw new ZipFormatError(`entry "${e.name}" fails its CRC check`);
    if (files.has(e.name)) throw new ZipFormatError(`entry "${e.name}" appears twice`);
    files.set(e.name, data);
  }
  return files;
}

/** A ZIP of the files in insertion order (`[Content_Types].xml` should come first for some readers). */
export function writeZip(files: Iterable<[string, Uint8Array | string]>, level = 6): Uint8Array {
  const encoder = new TextEncoder();
  const chunks: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  let count = 0;
  for (const [name, content] of files) {
    const data = typeof content === 'string' ? encoder.encode(content) : content;
    const nameBytes = encoder.encode(name);
    const compressed = data.length > 64 ? deflateRawSync(data, { level }) : null;
    const stored = compressed === null || compressed.length >= data.length;
    const body = stored ? data : compressed;
    const crc = crc32(data) >>> 0;
    const local = new Uint8Array(30 + nameBytes.length);
    const lv = new DataView(local.buffer);
    lv.setUint32(0, 0x04034b50, true);
    lv.setUint16(4, 20, true);
    lv.setUint16(6, 0x0800, true); // UTF-8 names
    lv.setUint16(8, stored ? 0 : 8, true);
    lv.setUint16(10, 0, true);
    lv.setUint16(12, 0x21, true); // 1980-01-01: fixed, so the same report gives the same bytes
    lv.setUint32(14, crc, true);
    lv.setUint32(18, body.length, true);
    lv.setUint32(22, data.length, true);
    lv.setUint16(26, nameBytes.length, true);
    local.set(nameBytes, 30);
    const header = new Uint8Array(46 + nameBytes.length);
    const cv = new DataView(header.buffer);
    cv.setUint32(0, 0x02014b50, true);
    cv.setUint16(4, 20, true);
    cv.setUint16(6, 20, true);
    cv.setUint16(8, 0x0800, true);
    cv.setUint16(10, stored ? 0 : 8, true);
    cv.setUint16(14, 0x21, true);
    cv.setUint32(16, crc, true);
    cv.setUint32(20, body.length, true);
    cv.setUint32(24, data.length, true);
    cv.setUint16(28, nameBytes.length, true);
    cv.setUint32(42, offset, true);
    header.set(nameBytes, 46);
    chunks.push(local, body);
    central.push(header);
    offset += local.length + body.length;
    count++;
  }
  if (offset > 0xffffffff || count > 0xfffe)
    throw new ZipFormatError('the document is too large for a ZIP without ZIP64');
  const cdSize = central.reduce((n, c) => n + c.length, 0);
  const end = new Uint8Array(22);
  const ev = new DataView(end.buffer);
  ev.setUint32(0, 0x06054b50, true);
  ev.setUint16(8, count, true);
  ev.setUint16(10, count, true);
  ev.setUint32(12, cdSize, true);
  ev.setUint32(16, offset, true);
  const out = new Uint8Array(offset + cdSize + 22);
  let at = 0;
  for (const c of [...chunks, ...central, end]) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
