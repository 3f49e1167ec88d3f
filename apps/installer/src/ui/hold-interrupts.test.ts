import { describe, expect, it } from 'vitest';
import { HELD_SIGNALS, holdInterrupts } from './hold-interrupts.ts';
import { LogFile } from './log-file.ts';
import { createReporter } from './reporter.ts';

describe('holdInterrupts', () => {
  const reporter = (screen: string[]) =>
    createReporter({ write: (t) => screen.push(t), isTTY: false }, new LogFile('upgrade', () => new Date()));

  it('stops at the next checkpoint on Ctrl-C, SIGTERM or a hangup while nothing has changed yet', async () => {
    for (const signal of HELD_SIGNALS) {
      const screen: string[] = [];
      const run = holdInterrupts(reporter(screen), 'the upgrade', async (hold) => {
        process.emit(signal, signal);
        hold.checkpoint();
        return 'finished';
      });
      await expect(run).rejects.toMatchObject({
        message: `the upgrade was stopped by ${signal} before anything was changed`,
        exitCode: 1,
      });
      expect(screen.join('')).toContain(`${signal}: the upgrade stops at the next safe point`);
    }
  });

  it('holds them once the installation is being changed, so the run finishes, and lets go afterwards', async () => {
    const screen: string[] = [];
    const before = HELD_SIGNALS.map((s) => process.listenerCount(s));
    const result = await holdInterrupts(reporter(screen), 'the restore', async (hold) => {
      hold.changing();
      process.emit('SIGHUP', 'SIGHUP');
      process.emit('SIGTERM', 'SIGTERM');
      hold.checkpoint();
      return 'finished';
    });
    expect(result).toBe('finished');
    expect(screen.join('')).toContain('SIGHUP: the restore is changing the installation; it is not interrupted now');
    expect(HELD_SIGNALS.map((s) => process.listenerCount(s))).toEqual(before);
  });
});
