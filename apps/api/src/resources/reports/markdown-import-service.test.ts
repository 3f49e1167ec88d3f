import { describe, expect, it } from 'vitest';
import { MarkdownImportService } from './markdown-import-service.ts';

describe('Markdown imports in turn', () => {
  it('runs at most CONCURRENT_IMPORTS at once, in arrival order, and carries on after a failure', async () => {
    const imports = new MarkdownImportService({} as never);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const releases: Array<() => void> = [];
    const results = Array.from({ length: 12 }, (_, i) =>
      imports
        .inTurn(async () => {
          started.push(i);
          running += 1;
          most = Math.max(most, running);
          await new Promise<void>((resolve) => releases.push(resolve));
          running -= 1;
          if (i === 3) throw new Error('import 3 failed');
          return i;
        })
        .then(
          (value) => value,
          () => 'failed',
        ),
    );
    // Release whichever imports are waiting on their work until all twelve have run.
    while (started.length < 12 || releases.length > 0) {
      await new Promise((resolve) => setImmediate(resolve));
      for (const release of releases.splice(0)) release();
    }
    const settled = await Promise.all(results);
    expect(most).toBe(MarkdownImportService.CONCURRENT_IMPORTS);
    expect(started).toEqual([...Array(12).keys()]);
    expect(settled).toEqual([0, 1, 2, 'failed', 4, 5, 6, 7, 8, 9, 10, 11]);
    // A later import runs at once: the failure gave its turn back.
    expect(await imports.inTurn(async () => 'next')).toBe('next');
  });
});
