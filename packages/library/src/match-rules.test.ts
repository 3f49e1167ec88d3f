import { describe, expect, it } from 'vitest';
import { ruleIdProblem } from '@service/scanners';

describe('ruleIdProblem for Nuclei', () => {
  it('accepts a template-id, and a template-id with a matcher name after one colon', () => {
    expect(ruleIdProblem('nuclei', 'git-config')).toBeNull();
    expect(ruleIdProblem('nuclei', 'http-missing-security-headers:content-security-policy')).toBeNull();
  });

  it('refuses an empty matcher name, a second colon and other characters', () => {
    expect(ruleIdProblem('nuclei', 'http-missing-security-headers:')).not.toBeNull();
    expect(ruleIdProblem('nuclei', 'a:b:c')).not.toBeNull();
    expect(ruleIdProblem('nuclei', 'git config')).not.toBeNull();
  });
});
