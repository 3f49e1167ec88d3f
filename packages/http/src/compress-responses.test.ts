import { describe, expect, it } from 'vitest';
import { isCompressibleType } from './compress-responses.ts';

describe('isCompressibleType', () => {
  it('compresses JSON and text, never what is compressed already', () => {
    for (const type of [
      'application/json; charset=utf-8',
      'application/problem+json',
      'text/markdown; charset=utf-8',
      'text/csv',
      'text/html; charset=utf-8',
      'text/javascript; charset=utf-8',
      'image/svg+xml',
    ]) {
      expect(isCompressibleType(type), type).toBe(true);
    }
    for (const type of [
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      'image/png',
      'image/jpeg',
      'image/webp',
      'application/zip',
      'application/gzip',
      'application/octet-stream',
      'application/pdf',
    ]) {
      expect(isCompressibleType(type), type).toBe(false);
    }
  });
});
