import { describe, expect, it } from 'vitest';
import { LogFile } from '../ui/log-file.ts';
import type { Prompt } from '../ui/prompt.ts';
import { createReporter } from '../ui/reporter.ts';
import { askLibraryImport, describeImport } from './library-question.ts';

function scripted(answer: boolean | null): Prompt & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    interactive: false,
    close() {},
    confirm: async (q, d) => {
      asked.push(`${q} default ${d ? 'yes' : 'no'}`);
      return answer ?? d;
    },
  };
}

async function ask(counts: { added: number; updated: number; removed: number } | null, answer: boolean | null) {
  let screen = '';
  const prompt = scripted(answer);
  const yes = await askLibraryImport({
    counts,
    home: '/opt/service',
    version: '1.3.0',
    reporter: createReporter({ write: (t) => (screen += t), isTTY: false }, new LogFile('upgrade', () => new Date())),
    prompt,
  });
  return { yes, screen, prompt };
}

describe('the library question after an upgrade', () => {
  it('states the new and updated items and asks, defaulting to no', async () => {
    const { yes, screen, prompt } = await ask({ added: 4, updated: 2, removed: 1 }, null);
    expect(yes).toBe(false);
    expect(screen).toContain('has 4 new and 2 updated item(s)');
    expect(prompt.asked).toEqual(['Import them now (the service restarts)? default no']);
    expect(screen).toContain('Import them later with: ./install.sh import-globals --home /opt/service');
  });

  it('answers yes only when told so', async () => {
    expect((await ask({ added: 1, updated: 0, removed: 0 }, true)).yes).toBe(true);
  });

  it('asks nothing when the library did not change or its difference is unknown', async () => {
    expect((await ask({ added: 0, updated: 0, removed: 3 }, true)).prompt.asked).toEqual([]);
    expect((await ask(null, true)).prompt.asked).toEqual([]);
  });

  it('describes what an import applied', () => {
    expect(
      describeImport({
        libraryVersion: 'v2',
        importedAt: '2026-11-23T10:00:00Z',
        counts: { added: 1, updated: 2, unchanged: 40, removed: 0, overwrittenEdits: 1 },
      }),
    ).toBe("1 new, 2 updated (1 with users' edits overwritten), 0 marked removed, 40 unchanged");
  });
});
