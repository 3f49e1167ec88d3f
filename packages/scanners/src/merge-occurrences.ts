import { LIMITS } from './limits.ts';
import type { CompleteFinding, CompleteOccurrence } from './normalized-finding.ts';
import { severityRank } from '@service/report-model';

/** The finding-level fields of a new finding; occurrences and identifiers are added by the merger. */
export type FindingSeed = Omit<CompleteFinding, 'groupKey' | 'occurrences' | 'cves' | 'cwes' | 'references'>;

export interface OccurrenceIdentifiers {
  cves?: readonly string[];
  cwes?: readonly number[];
  references?: readonly string[];
}

/** Lists shorter than this are de-duplicated by scanning; longer ones get a Set. */
const SET_THRESHOLD = 16;

interface Entry {
  finding: CompleteFinding;
  cveSet?: Set<string>;
  cweSet?: Set<number>;
  referenceSet?: Set<string>;
}

/**
 * Merges occurrences into findings by group key, within one file (SCANNERS.md rules common to all
 * formats): the first occurrence creates the finding, the finding severity is the maximum of its
 * occurrences (severityRaw follows the occurrence that set it), each occurrence keeps its own
 * severity and evidence, and CVE / CWE / reference lists are unions in order of first appearance.
 */
export class OccurrenceMerger {
  private readonly entries = new Map<string, Entry>();
  private occurrenceCount = 0;

  has(groupKey: string): boolean {
    return this.entries.has(groupKey);
  }

  get occurrences(): number {
    return this.occurrenceCount;
  }

  /**
   * Adds one occurrence. `seed` is called only when the group key is new, so callers can skip
   * building finding-level text for repeated occurrences; it must return a fresh object.
   */
  add(
    groupKey: string,
    occurrence: CompleteOccurrence,
    severityRaw: string,
    seed: () => FindingSeed,
    identifiers: OccurrenceIdentifiers = {},
  ): CompleteFinding {
    let entry = this.entries.get(groupKey);
    if (entry === undefined) {
      // Why assign rather than spread into a new object: spreading a 15-property object per
      // finding is two orders of magnitude slower in V8, which shows with 10,000+ findings.
      const finding = seed() as CompleteFinding;
      finding.groupKey = groupKey;
      finding.references = [];
      finding.cves = [];
      finding.cwes = [];
      finding.occurrences = [];
      entry = { finding };
      this.entries.set(groupKey, entry);
    } else if (severityRank(occurrence.severity) > severityRank(entry.finding.severity)) {
      entry.finding.severity = occurrence.severity;
      entry.finding.severityRaw = severityRaw;
    }
    const { finding } = entry;
    if (finding.occurrences.length < LIMITS.occurrences) finding.occurrences.push(occurrence);
    this.occurrenceCount++;
    const { cves, cwes, references } = identifiers;
    if (cves !== undefined && cves.length > 0) entry.cveSet = unionInto(finding.cves, entry.cveSet, cves, LIMITS.cves);
    if (cwes !== undefined && cwes.length > 0) entry.cweSet = unionInto(finding.cwes, entry.cweSet, cwes, LIMITS.cwes);
    if (references !== undefined && references.length > 0) {
      entry.referenceSet = unionInto(finding.references, entry.referenceSet, references, LIMITS.references);
    }
    return finding;
  }

  /** Findings in order of first appearance. */
  findings(): CompleteFinding[] {
    return Array.from(this.entries.values(), (entry) => entry.finding);
  }
}

/** Appends the values not yet in `list`; returns the Set that indexes `list` once it is long. */
function unionInto<T>(list: T[], seen: Set<T> | undefined, values: readonly T[], max: number): Set<T> | undefined {
  for (const value of values) {
    if (list.length >= max) break;
    if (seen !== undefined) {
      if (seen.has(value)) continue;
      seen.add(value);
    } else if (list.includes(value)) {
      continue;
    }
    list.push(value);
    if (seen === undefined && list.length >= SET_THRESHOLD) seen = new Set(list);
  }
  return seen;
}
