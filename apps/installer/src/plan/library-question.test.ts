import { describe, expect, it } from 'vitest';
import { readInstallerConfig } from '../installer-config.ts';
import { fakeClock, FakeRuntime } from '../testing/fake-runtime.ts';
import { LogFile } from '../ui/log-file.ts';
import type { Prompt } from '../ui/prompt.ts';
import { createReporter } from '../ui/reporter.ts';
import { askLibraryImport } from './library-question.ts';

function scripted(answer: boolean | null): Prompt & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    interactive: false,
    close() {},
    confirm: async (q, d) => (asked.push(`${q} default ${d ? 'yes' : 'no'}`), answer ?? d),
  };
}

async function ask(counts: { added: number; updated: number; removed: number } | null, answer: boolean | null) {
  const runtime = new FakeRuntime();
  runtime.runningVersion = '1.3.0';
  runtime.nextVersion = () => '1.3.0';
  let screen = '';
  const prompt = scripted(answer);
  const imported = await askLibraryImport({
    counts,
    home: '/opt/service',
    version: '1.3.0',
    runtime,
    reporter: createReporter({ write: (t) => (screen += t), isTTY: false }, new LogFile('upgrade', () => new Date())),
    prompt,
    clock: fakeClock(),
    config: { ...readInstallerConfig({}), healthGraceMs: 1000 },
  });
  return { imported, runtime, screen, prompt };
}

describe('the library question after an upgrade', () => {
  it('states the new and updated items and asks, defaulting to no', async () => {
    const { imported, runtime, screen, prompt } = await ask({ added: 4, updated: 2, removed: 1 }, null);
    expect(imported).toBe(false);
    expect(screen).toContain('has 4 new and 2 updated item(s)');
    expect(prompt.asked).toEqual(['Import them now (the service restarts)? default no']);
    expect(screen).toContain('Import them later with: ./install.sh import-globals --home /opt/service');
    expect(runtime.calls).toEqual([]);
  });

  it('on yes asks the service to import at its next start and restarts it', async () => {
    const { imported, runtime } = await ask({ added: 1, updated: 0, removed: 0 }, true);
    expect(imported).toBe(true);
    expect(runtime.calls).toEqual(['request globals import', 'stop app', 'up']);
  });

  it('asks nothing when the library did not change or its difference is unknown', async () => {
    expect((await ask({ added: 0, updated: 0, removed: 3 }, true)).prompt.asked).toEqual([]);
    expect((await ask(null, true)).prompt.asked).toEqual([]);
  });
});
