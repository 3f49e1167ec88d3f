import { SEVERITIES } from '@service/report-model';
import {
  BURP_EXTENSION_ISSUE_TYPE,
  OCCURRENCE_CONDITION_KINDS,
  RULE_CONDITION_SEPARATOR,
  RULE_MAX_CHARS,
  SCAN_FORMATS,
  SCANNERS,
  type RuleConditionKind,
  type ScanFormat,
} from './scan-format.ts';

// `<scanner>:<rule>` as one regular expression (ECMA-262, as JSON Schema reads `pattern`) that
// accepts exactly what `parseScannerRule` accepts, except that a `title=`, `detail=` or `output=`
// value must also be a title pattern the server can run (compiles, no back-references, no nested
// unbounded repeats), which no regular expression can say; the schema's description says it.

/** The conditions whose value is a title pattern (checked by titlePatternProblem besides). */
export const PATTERN_CONDITION_KINDS: readonly RuleConditionKind[] = ['title', 'detail', 'output'];

/** A character of a condition's value: anything that does not start the separator ` & `. */
const VALUE_CHAR = `(?:(?!${RULE_CONDITION_SEPARATOR})[\\s\\S])`;
/** A character of a CPE component: a value character other than `:`. */
const CPE_CHAR = `(?:(?!${RULE_CONDITION_SEPARATOR})[^:])`;
/** Where a value ends: at the separator or at the end of the rule. */
const VALUE_END = `(?=${RULE_CONDITION_SEPARATOR}|$)`;
/** A CPE component that is present and not the wildcard `*` (the product's vendor and name). */
const CPE_NAMED = `(?!\\*(?::|${RULE_CONDITION_SEPARATOR}|$))${CPE_CHAR}+`;

/** `failed` in any case: `[fF][aA]...`; conditions compare their keywords case-insensitively. */
function anyCase(word: string): string {
  return [...word].map((c) => (/[a-z]/i.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : c)).join('');
}

/**
 * The value each condition takes, as `conditionValue` in scan-format.ts checks it (the value is
 * trimmed-equal and free of the separator by valuePattern).
 */
function conditionValuePattern(scanner: ScanFormat, kind: RuleConditionKind): string {
  switch (kind) {
    case 'rule':
      return ruleIdPattern(scanner, VALUE_END);
    case 'family':
      return `${VALUE_CHAR}{1,200}`;
    case 'cpe':
      // `normalizeCpe`: the 2.3 or 2.2 (URI, or Nessus' `x-cpe:/`) form; part a, o or h; vendor and
      // product named; at least one component from the product on that is not `*`, `-` or empty
      // (the trailing ones are dropped).
      return (
        `(?:${anyCase('cpe')}:2\\.3:|(?:${anyCase('x')}-)?${anyCase('cpe')}:\\/)[aAoOhH]:${CPE_NAMED}:` +
        `(?=(?:${CPE_CHAR}*:)*(?![*-](?::|${RULE_CONDITION_SEPARATOR}|$))${CPE_CHAR})${CPE_NAMED}(?::${CPE_CHAR}*)*`
      );
    case 'tag':
    case 'type':
      return '[A-Za-z0-9][A-Za-z0-9._-]{0,99}';
    case 'title':
    case 'detail':
    case 'output':
      return `${VALUE_CHAR}{1,300}`;
    case 'cve':
      return `(?:${anyCase('cve')}-\\d{4}-\\d{4,19}|${anyCase('any')})`;
    case 'compliance':
      return `(?:${['failed', 'warning', 'error'].map(anyCase).join('|')})`;
    case 'severity':
      return `(?:${SEVERITIES.map(anyCase).join('|')})`;
  }
}

/** A value: starts and ends with a non-space (it must equal its trim), then the condition's form. */
const valuePattern = (scanner: ScanFormat, kind: RuleConditionKind) =>
  `(?=\\S)(?=${VALUE_CHAR}*\\S${VALUE_END})(?:${conditionValuePattern(scanner, kind)})${VALUE_END}`;

/**
 * Conditions joined by ` & `, each kind once (`tag=` may repeat), at most RULE_MAX_CHARS long, and
 * at least one about the rule rather than its occurrences (`severity=` alone describes no rule).
 */
function conditionsPattern(scanner: ScanFormat): string {
  const kinds: readonly RuleConditionKind[] = SCANNERS[scanner].conditions;
  const part = `(?:${kinds.map((k) => `${k}=${valuePattern(scanner, k)}`).join('|')})`;
  const once = kinds
    .filter((k) => k !== 'tag')
    .map((k) => `(?!(?:[\\s\\S]*${RULE_CONDITION_SEPARATOR})?${k}=[\\s\\S]*${RULE_CONDITION_SEPARATOR}${k}=)`)
    .join('');
  const aboutRule = kinds.filter((k) => !OCCURRENCE_CONDITION_KINDS.includes(k));
  const notOnlyOccurrences = `(?=(?:[\\s\\S]*${RULE_CONDITION_SEPARATOR})?(?:${aboutRule.join('|')})=)`;
  return `(?=[\\s\\S]{1,${RULE_MAX_CHARS}}$)${once}${notOnlyOccurrences}${part}(?:${RULE_CONDITION_SEPARATOR}${part})*`;
}

/** 1 to 65535, with leading zeros up to five digits in all (`open-port:<port>/<protocol>`). */
const PORT = '(?=\\d{1,5}\\/)0*(?:6553[0-5]|655[0-2]\\d|65[0-4]\\d{2}|6[0-4]\\d{3}|[1-5]\\d{4}|[1-9]\\d{0,3})';

/**
 * The rule ids a scanner's findings carry, as `ruleIdFormProblem` in scan-format.ts checks them;
 * `end` is where the id ends (the rule's end, or a `rule=` value's).
 */
function ruleIdPattern(scanner: ScanFormat, end = '$'): string {
  const form = SCANNERS[scanner].ruleId.pattern.source.replace(/^\^|\$$/g, '');
  if (scanner === 'burp') return `(?!${BURP_EXTENSION_ISSUE_TYPE}${end})${form}`;
  if (scanner === 'nmap') return `open-port:${PORT}\\/(?:tcp|udp|sctp)|(?!open-port:)(?:${form})`;
  return form;
}

/**
 * `<scanner>:<rule>` as a JSON Schema pattern: each scanner with the form of its rule ids and of
 * its conditions, so the API document states what the server checks. The one thing it cannot
 * state is that a `title=`, `detail=` or `output=` value must be a usable title pattern (see
 * titlePatternProblem).
 */
export const SCANNER_RULE_PATTERN = `^(?:${SCAN_FORMATS.map(
  (s) => `${s}:(?:${ruleIdPattern(s)}${SCANNERS[s].conditions.length > 0 ? `|${conditionsPattern(s)}` : ''})`,
).join('|')})$`;
