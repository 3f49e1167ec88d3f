import { describe, expect, it } from 'vitest';
import { JOURNAL_FORMAT, type JournalRecord } from '../journal/journal.ts';
import { planRecovery, type RecoveryFacts } from './plan-recovery.ts';

const heads = (v: string) => ({ controlPlane: `cp-${v}`, shared: `sh-${v}`, tenant: `tn-${v}` });

function facts(journal: Partial<JournalRecord>, seen: Partial<RecoveryFacts> = {}): RecoveryFacts {
  return {
    journal: {
      format: JOURNAL_FORMAT,
      operation: 'upgrade',
      pid: 1,
      host: 'box',
      startedAt: '2026-11-23T10:00:00.000Z',
      updatedAt: '2026-11-23T10:01:00.000Z',
      log: null,
      packageDir: '/tmp/service-1.3.0',
      from: '1.2.0',
      to: '1.3.0',
      backup: {
        file: '/opt/service/backups/service-1.2.0-20261123T100000Z.tar.gz',
        createdAt: '2026-11-23T10:00:00.000Z',
      },
      fromSchemaHeads: heads('1.2.0'),
      swap: null,
      stamp: null,
      forwardOnly: false,
      phase: 'health',
      state: 'started',
      stopped: null,
      steps: [],
      ...journal,
    },
    now: new Date('2026-11-23T10:05:00Z'),
    app: { state: 'missing', healthyVersion: null },
    databases: { version: '1.3.0', heads: heads('1.3.0') },
    databaseNames: null,
    backupPresent: true,
    backupOverride: null,
    ...seen,
  };
}

describe('planRecovery', () => {
  it.each<[string, Partial<JournalRecord>, Partial<RecoveryFacts>, string]>([
    ['an upgrade stopped while loading images', { phase: 'images' }, {}, 'clean-up'],
    ['an upgrade stopped in the file swap', { phase: 'files' }, {}, 'roll-back-upgrade'],
    [
      'the new version answers healthy',
      {},
      { app: { state: 'running', healthyVersion: '1.3.0' } },
      'roll-forward-upgrade',
    ],
    [
      'the old version still answers',
      { phase: 'start' },
      { app: { state: 'running', healthyVersion: '1.2.0' } },
      'roll-back-upgrade',
    ],
    [
      'the new version is still starting',
      {},
      { app: { state: 'running', healthyVersion: null } },
      'wait-for-new-version',
    ],
    [
      'the new version is gone, databases untouched',
      {},
      { databases: { version: '1.2.0', heads: heads('1.2.0') } },
      'roll-back-upgrade',
    ],
    ['the new version is gone, databases migrated', {}, {}, 'restore-before-upgrade'],
    ['…and the backup is gone too', {}, { backupPresent: false }, 'stuck'],
    ['status: the database is not running', {}, { databases: null, databaseStopped: true }, 'read-databases-first'],
    ['recover: the database cannot be read', {}, { databases: null }, 'stuck'],
    ['the library step, app down', { phase: 'library' }, {}, 'roll-forward-upgrade'],
  ])('%s: %s', (_what, journal, seen, action) => {
    expect(planRecovery(facts(journal, seen)).action).toBe(action);
  });

  it('names the backup to restore with its age, and another one when asked', () => {
    const plan = planRecovery(facts({}));
    expect(plan.summary).toContain(
      'restores the backup taken before the upgrade, /opt/service/backups/service-1.2.0-20261123T100000Z.tar.gz (taken 5 min ago',
    );
    const override = {
      file: '/elsewhere/service-1.2.0-20261122T100000Z.tar.gz',
      createdAt: '2026-11-22T10:00:00.000Z',
    };
    expect(planRecovery(facts({}, { backupPresent: false, backupOverride: override })).summary).toContain(
      '/elsewhere/service-1.2.0-20261122T100000Z.tar.gz (taken 24 h ago',
    );
  });

  it('goes back on a restore before its databases were swapped in, forward after, and forward for one recover began', () => {
    const restore = { operation: 'restore' as const, from: '1.3.0', to: '1.2.0', stamp: '20261123100000' };
    const names = (...n: string[]) => new Set(['service_control_plane', 'service_shared', 'service_tenant', ...n]);
    const target = (n: string) => `${n}_restore_20261123100000`;
    const before = names(target('service_control_plane'), target('service_shared'), target('service_tenant'));
    expect(planRecovery(facts({ ...restore, phase: 'dumps' }, { databaseNames: before })).action).toBe(
      'roll-back-restore',
    );
    expect(planRecovery(facts({ ...restore, phase: 'swap-databases' }, { databaseNames: before })).action).toBe(
      'roll-back-restore',
    );
    expect(planRecovery(facts({ ...restore, phase: 'swap-databases' }, { databaseNames: names() })).action).toBe(
      'roll-forward-restore',
    );
    expect(planRecovery(facts({ ...restore, phase: 'swap-databases' }, { databaseNames: null })).action).toBe('stuck');
    expect(
      planRecovery(facts({ ...restore, phase: 'dumps', forwardOnly: true }, { databaseNames: before })).action,
    ).toBe('roll-forward-restore');
  });
});
