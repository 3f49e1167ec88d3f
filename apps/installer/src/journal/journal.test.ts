import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestFolder, type TestFolder } from '@service/release-kit/testing';
import { createFaultInjector } from './fault-injection.ts';
import {
  Journal,
  JOURNAL_FILE,
  JournalUnreadableError,
  readJournal,
  readLastOutcome,
  type JournalStart,
} from './journal.ts';

const START: JournalStart = {
  operation: 'restore',
  log: '/opt/service/logs/installer-restore.log',
  packageDir: '/tmp/service-1.2.0',
  from: '1.3.0',
  to: '1.2.0',
  backup: { file: '/opt/service/backups/b.tar.gz', createdAt: '2026-11-23T10:00:00.000Z' },
  fromSchemaHeads: null,
  stamp: '20261123100000',
};

describe('the journal', () => {
  let folder: TestFolder;
  const now = () => new Date('2026-11-23T10:00:00Z');
  beforeEach(() => (folder = createTestFolder('journal-', { inMemory: true })));
  afterEach(() => folder.remove());

  it('records each phase before going on, never goes back, and ends in last-<operation>.json', async () => {
    const journal = await Journal.begin(folder.dir, START, { now });
    await journal.enter('verify');
    await journal.leave('verify');
    await journal.enter('swap-databases');
    expect(await readJournal(folder.dir)).toMatchObject({
      operation: 'restore',
      phase: 'swap-databases',
      state: 'started',
    });
    // A resumed run passes earlier phases again: the record keeps how far the operation got.
    await journal.enter('verify');
    expect(await readJournal(folder.dir)).toMatchObject({ phase: 'swap-databases', state: 'started' });
    await expect(Journal.begin(folder.dir, START, { now })).rejects.toThrow(/an unfinished installer run is recorded/);
    await journal.finish('succeeded', 'restored');
    expect(existsSync(path.join(folder.dir, JOURNAL_FILE))).toBe(false);
    expect(await readLastOutcome(folder.dir, 'restore')).toMatchObject({
      result: 'succeeded',
      from: '1.3.0',
      to: '1.2.0',
    });
  });

  it('never holds a secret, and refuses to be ignored when it cannot be read', async () => {
    await Journal.begin(folder.dir, START, { now });
    expect(readFileSync(path.join(folder.dir, JOURNAL_FILE), 'utf8')).not.toMatch(/PASSWORD|secret/i);
    writeFileSync(path.join(folder.dir, JOURNAL_FILE), '{"format":');
    await expect(readJournal(folder.dir)).rejects.toBeInstanceOf(JournalUnreadableError);
  });

  it('lets a test crash or fill the disk right after a recorded point', async () => {
    const faults = createFaultInjector({ kind: 'enospc', point: 'restore:verify:done' });
    const journal = await Journal.begin(folder.dir, START, { now, faults });
    await journal.enter('verify');
    await journal.leave('verify');
    await expect(journal.enter('images')).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(await readJournal(folder.dir)).toMatchObject({ phase: 'verify', state: 'done' });
    // The outcome cannot be written on a full disk; the journal still goes, as the state is consistent.
    await journal.finish('rolled-back', 'disk full');
    expect(existsSync(path.join(folder.dir, JOURNAL_FILE))).toBe(false);
  });
});
