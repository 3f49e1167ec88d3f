import { describe, expect, it } from 'vitest';
import { detectFormat, parseScan, type ScanFormat } from './index.ts';
import { loadExpected, readFixture } from './testing/scan-fixtures.ts';

const utf8 = (text: string) => new TextEncoder().encode(text);

describe('detectFormat on every fixture', () => {
  it.each(Object.keys(loadExpected().files))('%s', (file) => {
    const bytes = readFixture(file);
    // Why null for a blank file: nothing in it says which scanner wrote it.
    const expected = bytes.some((b) => b > 0x20) ? (file.split('/')[0] as ScanFormat) : null;
    expect(detectFormat(bytes)).toBe(expected);
  });
});

describe('detectFormat', () => {
  it.each<[string, string, ScanFormat | null]>([
    ['a BOM and whitespace', '\ufeff \n<?xml version="1.0"?><nmaprun/>', 'nmap'],
    [
      'a DOCTYPE with an internal subset',
      '<?xml version="1.0"?>\n<!DOCTYPE issues [\n<!ELEMENT issues (issue*)>\n<!ATTLIST ' +
        'issues a CDATA ">">\n]>\n<issues/>',
      'burp',
    ],
    [
      'comments and processing instructions',
      '<?xml version="1.0"?><?xml-stylesheet href="x"?><!-- <issues> --><NessusClientData_v2>',
      'nessus',
    ],
    ['junk before the declaration', 'SPDX: x\n<?xml version="1.0"?>\n<nmaprun>', 'nmap'],
    ['no declaration', '<NessusClientData_v2><Report/></NessusClientData_v2>', 'nessus'],
    ['JSON lines', '\n{"template-id":"x"}', 'nuclei'],
    ['a JSON array', '  [ ]', 'nuclei'],
    ['a Nuclei JSON array', '[\n  {\n    "template": "x.yaml",\n    "template-id": "x"', 'nuclei'],
    ['legacy Nuclei JSON lines', '{"templateID":"x"}', 'nuclei'],
    ['a ZAP JSON report', '{\n  "@version": "2.11.1",\n  "site": []\n}', null],
    ['a Semgrep JSON report', '{"errors": [], "results": []}', null],
    ["Burp's proxy history export", '<?xml version="1.0"?><items burpVersion="2023"/>', null],
    ['another XML document', '<?xml version="1.0"?><html/>', null],
    ['plain text', 'hello', null],
    ['an empty file', '', null],
  ])('reads %s', (_label, text, expected) => {
    expect(detectFormat(utf8(text))).toBe(expected);
  });

  it('recognises UTF-16 files', () => {
    const text = '<?xml version="1.0" encoding="UTF-16"?><nmaprun/>';
    const bytes = new Uint8Array(2 + text.length * 2);
    bytes.set([0xfe, 0xff]);
    for (let i = 0; i < text.length; i++) bytes[3 + i * 2] = text.charCodeAt(i);
    expect(detectFormat(bytes)).toBe('nmap');
  });
});

describe('parseScan without a format', () => {
  it('says that JSON of another tool is not a Nuclei export', () => {
    expect(() => parseScan(utf8('{"errors": [], "results": []}'))).toThrow(/^The file is JSON but not a Nuclei export/);
  });
});
