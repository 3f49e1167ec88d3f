/**
 * The scanners this product reads, declared once: their names, the names people read, the rule
 * ids their findings carry (the form a library rule must have, with an example), and for the XML
 * formats the root element. Parsers, format detection, the library's match rules, the finding
 * library's API schema and the documents' examples all derive from this.
 */
export const SCANNERS = {
  nessus: {
    label: 'Nessus',
    rootElement: 'NessusClientData_v2',
    ruleId: {
      pattern: /^\d{1,7}$/,
      describe: 'a Nessus plugin id (digits, such as 57608)',
      example: '57608',
    },
  },
  burp: {
    label: 'Burp Suite',
    rootElement: 'issues',
    ruleId: {
      pattern: /^\d{1,10}$/,
      describe: 'a Burp issue type number (digits, such as 5245344)',
      example: '5245344',
    },
  },
  nmap: {
    label: 'Nmap',
    rootElement: 'nmaprun',
    ruleId: {
      pattern: /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,299}$/,
      describe: 'open-port:<port>/<tcp|udp|sctp>, an NSE script id or a vulners id',
      example: 'smb2-security-mode',
    },
  },
  nuclei: {
    label: 'Nuclei',
    rootElement: null,
    ruleId: {
      pattern: /^[A-Za-z0-9][A-Za-z0-9._-]{0,299}(:[A-Za-z0-9][A-Za-z0-9._-]{0,199})?$/,
      describe:
        'a Nuclei template-id, optionally with a matcher name after a colon (such as git-config or ' +
        'http-missing-security-headers:content-security-policy)',
      example: 'git-config',
    },
  },
} as const;

/** The scanner export formats this package can read. */
export type ScanFormat = keyof typeof SCANNERS;

export const SCAN_FORMATS = Object.keys(SCANNERS) as readonly ScanFormat[];

/** Names used in messages a person reads. */
export const SCAN_FORMAT_LABELS = Object.fromEntries(SCAN_FORMATS.map((s) => [s, SCANNERS[s].label])) as Readonly<
  Record<ScanFormat, string>
>;

/** The XML formats and the root element each must have. */
export type XmlScanFormat = {
  [S in ScanFormat]: (typeof SCANNERS)[S]['rootElement'] extends string ? S : never;
}[ScanFormat];

export const ROOT_ELEMENT_OF = Object.fromEntries(
  SCAN_FORMATS.flatMap((s) => (SCANNERS[s].rootElement ? [[s, SCANNERS[s].rootElement]] : [])),
) as Readonly<Record<XmlScanFormat, string>>;

/**
 * Burp's one type for every issue an extension reports: matching on it would match them all,
 * so such issues are matched by title (`titlePatterns.burp`).
 */
export const BURP_EXTENSION_ISSUE_TYPE = '134217728';

const NMAP_OPEN_PORT = /^open-port:(\d{1,5})\/(tcp|udp|sctp)$/;

/**
 * Why a rule id cannot be declared for a scanner, or null when it is well-formed: exactly the
 * `ruleId` our parsers emit (Nessus pluginID, Burp issue type, Nuclei template-id with an optional
 * matcher name, Nmap `open-port:<port>/<proto>` or script/vulners id).
 */
export function ruleIdProblem(scanner: ScanFormat, ruleId: string): string | null {
  if (scanner === 'burp' && ruleId === BURP_EXTENSION_ISSUE_TYPE) {
    return (
      `burp type ${BURP_EXTENSION_ISSUE_TYPE} is shared by every extension-generated ` +
      `issue; match those by title with \`titlePatterns.burp\``
    );
  }
  if (scanner === 'nmap' && ruleId.startsWith('open-port:')) {
    const m = NMAP_OPEN_PORT.exec(ruleId);
    if (!m || Number(m[1]) < 1 || Number(m[1]) > 65_535)
      return `"${ruleId}" is not of the form open-port:<port 1-65535>/<tcp|udp|sctp>`;
    return null;
  }
  const form = SCANNERS[scanner].ruleId;
  return form.pattern.test(ruleId) ? null : `"${ruleId}" is not ${form.describe}`;
}

/**
 * `<scanner>:<rule id>` as a JSON Schema pattern: each scanner with the form of its rule ids, so
 * the API document states what the server checks (the Burp extension type and the open-port
 * range are checked besides, with a message saying why).
 */
export const SCANNER_RULE_PATTERN = `^(${SCAN_FORMATS.map((s) => `${s}:${SCANNERS[s].ruleId.pattern.source.replace(/^\^|\$$/g, '')}`).join('|')})$`;

/** One `<scanner>:<rule id>` example per scanner. */
export const SCANNER_RULE_EXAMPLES: readonly string[] = SCAN_FORMATS.map((s) => `${s}:${SCANNERS[s].ruleId.example}`);
