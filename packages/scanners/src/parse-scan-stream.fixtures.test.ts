import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parseScan, parseScanStream, ScanParseError, type ScanFormat } from './index.ts';
import { loadExpected, readFixture } from './testing/scan-fixtures.ts';

async function* chunks(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let offset = 0; offset < bytes.length; offset += size) yield bytes.subarray(offset, offset + size);
}

describe('parseScanStream gives the same result as parseScan whatever the chunk size', () => {
  const files = Object.keys(loadExpected().files);
  it.each(files)('%s', async (file) => {
    const bytes = readFixture(file);
    const format = file.split('/')[0] as ScanFormat;
    const whole = parseScan(bytes, { format });
    // Odd sizes split multi-byte characters, tags, CDATA markers, entities and JSON strings.
    const sizes = bytes.length < 50_000 ? [1, 7, 4093] : [997, 65_536];
    for (const size of sizes) {
      expect(await parseScanStream(chunks(bytes, size), { format }), `chunks of ${size}`).toEqual(whole);
    }
  });

  it('reads a Node stream', async () => {
    const bytes = readFixture('nmap/dd__nmap_issue4406.xml');
    const result = await parseScanStream(Readable.from([Buffer.from(bytes)]), { format: 'nmap' });
    expect(result.findings).toEqual(parseScan(bytes, { format: 'nmap' }).findings);
  });

  it('splits a multi-byte character across chunks', async () => {
    const text = '{"template-id":"t","info":{"name":"caf\u00e9 \u{1F600}","severity":"info"},"host":"h"}\n';
    const bytes = new TextEncoder().encode(text);
    const result = await parseScanStream(chunks(bytes, 1), { format: 'nuclei' });
    expect(result.findings[0]!.title).toBe('caf\u00e9 \u{1F600}');
  });

  it('follows escaped quotes and backslash runs across chunk borders in a JSON array', async () => {
    const names = ['a\\', 'b\\\\', '\\"x\\"', 'c\\\\\\"d', '\\\\\\\\'];
    const record = (name: string, i: number) =>
      JSON.stringify({ 'template-id': `t${i}`, info: { name, severity: 'low' }, host: 'h' });
    const bytes = new TextEncoder().encode(`[${names.map(record).join(',')}]`);
    for (const size of [1, 2, 3, 5, 7]) {
      const result = await parseScanStream(chunks(bytes, size), { format: 'nuclei' });
      expect(
        result.findings.map((f) => f.title),
        `chunks of ${size}`,
      ).toEqual(names);
    }
  });

  it('rejects bad input from a stream with a ScanParseError', async () => {
    const bytes = readFixture('nessus/dd__nessus_v_unknown.xml');
    await expect(
      parseScanStream(chunks(bytes.subarray(0, 500_000), 65_536), { format: 'nessus' }),
    ).rejects.toBeInstanceOf(ScanParseError);
  });

  it('refuses text chunks, which would mean an encoding was set on the stream', async () => {
    await expect(parseScanStream(Readable.from(['<nmaprun/>']), { format: 'nmap' })).rejects.toThrow(/stream of bytes/);
  });
});
