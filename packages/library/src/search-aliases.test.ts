import { describe, expect, it } from 'vitest';
import { searchAlternatives } from './search-aliases.ts';

describe('searchAlternatives', () => {
  it('spells out abbreviations among the words, case and punctuation aside', () => {
    expect(searchAlternatives('IDOR')).toContain('insecure direct object reference');
    expect(searchAlternatives('stored XSS')).toEqual(['stored cross site scripting']);
    expect(searchAlternatives('2FA')).toContain('two factor authentication');
    expect(searchAlternatives('sql injection')).toEqual([]);
  });

  it('stays bounded for a query of many abbreviations', () => {
    expect(searchAlternatives('rce lfi idor xss sqli csrf ssrf').length).toBeLessThanOrEqual(8);
  });
});
