import { SEVERITIES } from '@service/report-model';
import { titlePatternProblem } from './title-pattern.ts';

/**
 * The scanners this product reads, declared once: their names, the names people read, the rule
 * ids their findings carry (the form a library rule must have, with an example), and for the XML
 * formats the root element. Parsers, format detection, the library's match rules, the finding
 * library's API schema and the documents' examples all derive from this.
 */
/** What a rule can test besides the rule id (see `RuleCondition`). */
export const RULE_CONDITION_KINDS = [
  'rule',
  'family',
  'cpe',
  'tag',
  'title',
  'cve',
  'compliance',
  'type',
  'severity',
  'detail',
  'output',
] as const;
export type RuleConditionKind = (typeof RULE_CONDITION_KINDS)[number];

/**
 * The conditions about one occurrence (its severity, the scanner's detail of it, its output)
 * rather than the rule: a rule with one of them takes only those occurrences of a finding, so one
 * scanner rule can become several findings (see `matchScanFinding` of the library).
 */
export const OCCURRENCE_CONDITION_KINDS: readonly RuleConditionKind[] = ['severity', 'detail', 'output'];

interface ScannerDeclaration {
  label: string;
  rootElement: string | null;
  ruleId: { pattern: RegExp; describe: string; example: string };
  /** the conditions a `<scanner>:<condition> & ...` rule of this scanner may use */
  conditions: readonly RuleConditionKind[];
}

export const SCANNERS = {
  nessus: {
    label: 'Nessus',
    rootElement: 'NessusClientData_v2',
    ruleId: {
      pattern: /^\d{1,7}$/,
      describe: 'a Nessus plugin id (digits, such as 57608)',
      example: '57608',
    },
    conditions: ['rule', 'family', 'cpe', 'title', 'cve', 'compliance', 'severity', 'output'],
  },
  burp: {
    label: 'Burp Suite',
    rootElement: 'issues',
    ruleId: {
      pattern: /^\d{1,10}$/,
      describe: 'a Burp issue type number (digits, such as 5245344)',
      example: '5245344',
    },
    conditions: ['rule', 'title', 'severity', 'detail'],
  },
  nmap: {
    label: 'Nmap',
    rootElement: 'nmaprun',
    ruleId: {
      pattern: /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,299}$/,
      describe:
        'open-port:<port>/<tcp|udp|sctp>, an NSE script id (optionally with the condition it reported ' +
        'after a colon, such as ssl-cert:expired) or a vulners id',
      example: 'smb2-security-mode',
    },
    conditions: ['rule', 'cpe', 'title', 'cve', 'type', 'severity', 'output'],
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
    conditions: ['rule', 'tag', 'cpe', 'title', 'cve', 'type', 'severity', 'output'],
  },
} as const satisfies Record<string, ScannerDeclaration>;

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

/** Longest rule (`<scanner>:` excluded); the API stores rules of up to 300 characters. */
export const RULE_MAX_CHARS = 290;

/** Joins the conditions of one rule: `family=Web Servers & title=^Apache`. */
export const RULE_CONDITION_SEPARATOR = ' & ';

/** One test of a condition rule; `value` is normalised (see `parseScannerRule`). */
export interface RuleCondition {
  kind: RuleConditionKind;
  value: string;
}

/** A rule as matching reads it: an exact rule id, or conditions that must all hold. */
export type ScannerRule =
  | { scanner: ScanFormat; form: 'id'; id: string }
  | { scanner: ScanFormat; form: 'conditions'; conditions: RuleCondition[] };

const CONDITION_START = /^[a-z]+=/;
const TAG = /^[a-z0-9][a-z0-9._-]{0,99}$/;
const CVE = /^CVE-\d{4}-\d{4,19}$/;
const COMPLIANCE_RESULTS = ['failed', 'warning', 'error'];

/**
 * A CPE as `part:vendor:product[:version...]` (lower case), from the 2.2 URI form (`cpe:/a:openbsd:openssh`,
 * Nessus' `x-cpe:/a:...`) or the 2.3 form (`cpe:2.3:a:openbsd:openssh:7.4:*:...`); trailing
 * wildcards are dropped. Null when the text is no CPE.
 */
export function normalizeCpe(text: string): string | null {
  const value = text.trim().toLowerCase();
  let parts: string[];
  if (value.startsWith('cpe:2.3:')) parts = value.slice(8).split(':');
  else if (/^(x-)?cpe:\//.test(value)) parts = value.slice(value.indexOf('/') + 1).split(':');
  else return null;
  while (
    parts.length > 0 &&
    (parts[parts.length - 1] === '*' || parts[parts.length - 1] === '-' || parts[parts.length - 1] === '')
  )
    parts.pop();
  if (parts.length < 3 || !/^[aoh]$/.test(parts[0]!) || parts.slice(0, 3).some((p) => p === '' || p === '*'))
    return null;
  return parts.join(':');
}

/** True when the CPE `rule` (normalised) names the product, and version where given, of `cpe` (normalised). */
export function cpeCovers(rule: string, cpe: string): boolean {
  return cpe === rule || cpe.startsWith(`${rule}:`);
}

/**
 * Reads a rule of a scanner: its exact rule id, or `<condition>=<value>` parts joined by ` & `
 * that must all hold. Returns the problem instead when the rule is not well-formed.
 *
 * | condition | scanners | holds when |
 * |---|---|---|
 * | `family=<name>` | nessus | the plugin family is `<name>` (case-insensitive) |
 * | `cpe=<cpe>` | nessus, nmap, nuclei | a CPE of the finding is this product (and version, when given) |
 * | `tag=<tag>` | nuclei | the template has this tag (several `tag=`: all of them) |
 * | `title=<pattern>` | nessus, nmap, nuclei | the title matches the pattern (as title patterns do) |
 * | `cve=<CVE>` | nessus, nmap, nuclei | the finding carries this CVE, whatever else it carries; `cve=any`: some CVE (or its rule id is one) |
 * | `compliance=<failed\|warning\|error>` | nessus | the compliance audit result of a grouped audit finding |
 * | `type=<type>` | nmap, nuclei | the check type (Nuclei protocol; Nmap `open-port`, `nse-script`, vulners type) |
 * | `rule=<rule id>` | all | the rule id (as an exact rule id, `<id>:<matcher>` included) |
 * | `severity=<severity>` | all | the occurrence's severity (`info`, `low`, ...) |
 * | `detail=<pattern>` | burp | the occurrence's detail (Burp issueDetail) matches the pattern |
 * | `output=<pattern>` | nessus, nmap, nuclei | the occurrence's output (plugin or script output, extracted results) matches |
 *
 * A rule with an occurrence condition (`severity`, `detail`, `output`) also needs one about the
 * rule (`rule=`, `title=`, ...): it describes a variant of a scanner rule, not every finding.
 */
export function parseScannerRule(
  scanner: ScanFormat,
  rule: string,
): { rule: ScannerRule; problem: null } | { rule: null; problem: string } {
  const fail = (problem: string) => ({ rule: null, problem }) as const;
  if (!CONDITION_START.test(rule)) {
    const problem = ruleIdFormProblem(scanner, rule);
    return problem ? fail(problem) : { rule: { scanner, form: 'id', id: rule }, problem: null };
  }
  if (rule.length > RULE_MAX_CHARS) return fail(`a rule may be at most ${RULE_MAX_CHARS} characters long`);
  const allowed: readonly RuleConditionKind[] = SCANNERS[scanner].conditions;
  if (allowed.length === 0)
    return fail(`${SCANNERS[scanner].label} rules are ${SCANNERS[scanner].ruleId.describe}; it has no conditions`);
  const conditions: RuleCondition[] = [];
  for (const part of rule.split(RULE_CONDITION_SEPARATOR)) {
    const eq = part.indexOf('=');
    const kind = part.slice(0, eq) as RuleConditionKind;
    const raw = part.slice(eq + 1);
    if (eq < 0 || !(RULE_CONDITION_KINDS as readonly string[]).includes(kind))
      return fail(
        `"${part}" is not a condition; write <condition>=<value> with a condition of ` +
          `${allowed.join(', ')}, and join conditions with " & "`,
      );
    if (!allowed.includes(kind))
      return fail(`${SCANNERS[scanner].label} rules cannot test \`${kind}\` (they can test ${allowed.join(', ')})`);
    if (kind !== 'tag' && conditions.some((c) => c.kind === kind))
      return fail(`\`${kind}=\` is given twice in one rule`);
    const value = raw.trim();
    if (value === '' || value !== raw) return fail(`\`${kind}=\` needs a value without surrounding spaces`);
    const checked = conditionValue(scanner, kind, value);
    if (typeof checked !== 'string') return fail(checked.problem);
    conditions.push({ kind, value: checked });
  }
  if (conditions.every((c) => OCCURRENCE_CONDITION_KINDS.includes(c.kind)))
    return fail(
      `a rule with ${conditions.map((c) => `\`${c.kind}=\``).join(' and ')} needs a condition about the rule too ` +
        '(such as `rule=<id>` or `title=<pattern>`): it describes a variant of a scanner rule',
    );
  return { rule: { scanner, form: 'conditions', conditions }, problem: null };
}

function conditionValue(scanner: ScanFormat, kind: RuleConditionKind, value: string): string | { problem: string } {
  switch (kind) {
    case 'rule': {
      const problem = ruleIdFormProblem(scanner, value);
      return problem ? { problem: `rule=: ${problem}` } : value;
    }
    case 'severity':
      return (SEVERITIES as readonly string[]).includes(value.toLowerCase())
        ? value.toLowerCase()
        : { problem: `severity= is one of ${SEVERITIES.join(', ')}, found "${value}"` };
    case 'detail':
    case 'output': {
      const problem = titlePatternProblem(value);
      return problem ? { problem: `${kind}=: ${problem}` } : value;
    }
    case 'family':
      return value.length <= 200 ? value.toLowerCase() : { problem: 'a plugin family has at most 200 characters' };
    case 'cpe': {
      const cpe = normalizeCpe(value);
      return cpe ?? { problem: `"${value}" is not a CPE such as cpe:/a:openbsd:openssh or cpe:2.3:a:openbsd:openssh` };
    }
    case 'tag':
    case 'type':
      return TAG.test(value.toLowerCase())
        ? value.toLowerCase()
        : { problem: `"${value}" is not a ${kind} (letters, digits, ".", "_", "-")` };
    case 'title': {
      const problem = titlePatternProblem(value);
      return problem ? { problem: `title=: ${problem}` } : value;
    }
    case 'cve':
      if (value.toLowerCase() === 'any') return 'any';
      return CVE.test(value.toUpperCase())
        ? value.toUpperCase()
        : { problem: `"${value}" is not a CVE id such as CVE-2021-44228, nor \`any\`` };
    case 'compliance':
      return COMPLIANCE_RESULTS.includes(value.toLowerCase())
        ? value.toLowerCase()
        : { problem: `compliance= is one of ${COMPLIANCE_RESULTS.join(', ')}, found "${value}"` };
  }
}

/**
 * Why a rule cannot be declared for a scanner, or null when it is well-formed: exactly the
 * `ruleId` our parsers emit (Nessus pluginID, Burp issue type, Nuclei template-id with an optional
 * matcher name, Nmap `open-port:<port>/<proto>`, script id with an optional condition, or vulners
 * id), or conditions (see `parseScannerRule`).
 */
export function ruleIdProblem(scanner: ScanFormat, ruleId: string): string | null {
  if (!(SCAN_FORMATS as readonly string[]).includes(scanner)) return `unknown scanner "${scanner}"`;
  return parseScannerRule(scanner, ruleId).problem;
}

function ruleIdFormProblem(scanner: ScanFormat, ruleId: string): string | null {
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
  const conditions: readonly string[] = SCANNERS[scanner].conditions;
  return form.pattern.test(ruleId)
    ? null
    : `"${ruleId}" is not ${form.describe}${conditions.length > 0 ? ` nor conditions (${conditions.map((c) => `${c}=`).join(', ')})` : ''}`;
}

/** One `<scanner>:<rule id>` example per scanner. */
export const SCANNER_RULE_EXAMPLES: readonly string[] = SCAN_FORMATS.map((s) => `${s}:${SCANNERS[s].ruleId.example}`);
