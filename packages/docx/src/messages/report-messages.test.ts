import { describe, expect, it } from 'vitest';
import {
  FINDING_FIELD_NAMES,
  FINDING_FIELDS,
  FINDING_STATUSES,
  REPORT_STATUSES,
  SEVERITIES,
} from '@service/report-model';
import { TEMPLATE_TAGS } from '../template/template-data.ts';
import { reportLocale } from './report-locale.ts';
import { CATALOGUES, ENGLISH, GERMAN, LABEL_TAGS, type MessageKey } from './report-messages.ts';

const params = (message: string) => [...message.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('the message catalogue', () => {
  it('has a German entry for every finding field label, severity, finding status and report status', () => {
    const needed: MessageKey[] = [
      ...FINDING_FIELD_NAMES.map((name) => `field.${name}` as const),
      ...SEVERITIES.map((s) => `severity.${s}` as const),
      ...FINDING_STATUSES.map((s) => `status.${s}` as const),
      ...REPORT_STATUSES.map((s) => `reportStatus.${s}` as const),
    ];
    const missing = needed.filter((key) => !GERMAN[key]?.trim());
    expect(missing, 'keys without a German text').toEqual([]);
  });

  it('takes English field labels from the report model', () => {
    for (const name of FINDING_FIELD_NAMES) expect(ENGLISH[`field.${name}`]).toBe(FINDING_FIELDS[name].label);
  });

  it('is complete in every language: the same keys, and the same parameters in each message', () => {
    for (const [language, catalogue] of Object.entries(CATALOGUES)) {
      expect(Object.keys(catalogue).sort(), language).toEqual(Object.keys(ENGLISH).sort());
      for (const key of Object.keys(ENGLISH) as MessageKey[]) {
        expect(catalogue[key].trim(), `${language} ${key}`).not.toBe('');
        expect(params(catalogue[key]), `${language} ${key}`).toEqual(params(ENGLISH[key]));
      }
    }
  });

  it('gives every plain message a template tag of its own, known to the linter', () => {
    const tags = LABEL_TAGS.map((t) => t.tag);
    expect(new Set(tags).size).toBe(tags.length);
    expect(tags).toEqual(expect.arrayContaining(['label.severity', 'label.severity.high', 'label.status.open']));
    expect(tags).toEqual(expect.arrayContaining(FINDING_FIELD_NAMES.map((n) => `label.${n}`)));
    for (const tag of tags) expect(TEMPLATE_TAGS.tags[tag], tag).toBe('text');
  });
});

describe('reportLocale', () => {
  it('picks the catalogue by the primary language and formats numbers and dates for the whole tag', () => {
    for (const language of ['de', 'de-DE', 'de-AT', 'de-CH']) {
      const de = reportLocale(language);
      expect(de.language).toBe('de');
      expect(de.severity('high')).toBe('Hoch');
      expect(de.fieldLabel('affectedAssets')).toBe('Betroffene Systeme');
    }
    const de = reportLocale('de-DE');
    expect(de.score(9.8)).toBe('9,8');
    expect(de.integer(12345)).toBe('12.345');
    expect(de.date('2024-03-04')).toBe('4. März 2024');
    expect(de.plural('findingsInTotal', 1)).toBe('1 Befund insgesamt');
    expect(de.plural('findingsInTotal', 2)).toBe('2 Befunde insgesamt');

    const en = reportLocale('en');
    expect([en.language, en.score(9.8), en.date('2024-03-04')]).toEqual(['en', '9.8', 'March 4, 2024']);
    expect(en.plural('findingsInTotal', 1)).toBe('1 finding in total');
    expect(reportLocale('en-GB').date('2024-03-04')).toBe('4 March 2024');
  });

  it('writes reports in languages it has no catalogue for in English, with their own dates', () => {
    const fr = reportLocale('fr');
    expect([fr.language, fr.severity('critical'), fr.date('2024-03-04')]).toEqual(['en', 'Critical', '4 mars 2024']);
    for (const bad of ['', 'not a language tag!', null, undefined])
      expect(reportLocale(bad as string).text('contents')).toBe('Contents');
  });
});
