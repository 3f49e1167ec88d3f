import { describe, expect, it } from 'vitest';
import { fakeClock, FakeRuntime } from '../testing/fake-runtime.ts';
import { waitForHealth } from './wait-for-health.ts';

const options = { expectedVersion: '1.3.0', timeoutMs: 30_000, graceMs: 5_000 };

describe('waitForHealth', () => {
  it('succeeds once the new version answers healthy and stays so for the grace period', async () => {
    const runtime = new FakeRuntime();
    runtime.runningVersion = '1.3.0';
    const clock = fakeClock();
    const start = clock.now();
    expect(await waitForHealth(runtime, { ...options, clock })).toEqual({ ok: true, healthyAfterMs: 0 });
    expect(clock.now() - start).toBeGreaterThanOrEqual(5_000);
  });

  it('keeps waiting while the old version still answers, and gives up after the timeout naming it', async () => {
    const runtime = new FakeRuntime();
    runtime.runningVersion = '1.2.0';
    expect(await waitForHealth(runtime, { ...options, clock: fakeClock() })).toEqual({
      ok: false,
      reason: 'not healthy after 30 s: the service answers version 1.2.0, not 1.3.0',
    });
  });

  it('fails at once when the app exits', async () => {
    const runtime = new FakeRuntime();
    runtime.appExited = true;
    const clock = fakeClock();
    const start = clock.now();
    expect(await waitForHealth(runtime, { ...options, clock })).toEqual({
      ok: false,
      reason: 'the app exited with code 3',
    });
    expect(clock.now()).toBe(start);
  });

  it('notices a crash right after a healthy start', async () => {
    const runtime = new FakeRuntime();
    runtime.runningVersion = '1.3.0';
    const clock = fakeClock();
    let probes = 0;
    const probe = runtime.probe.bind(runtime);
    runtime.probe = async (p) => {
      if (p === '/api/health' && ++probes === 3) runtime.runningVersion = null;
      return probe(p);
    };
    expect(await waitForHealth(runtime, { ...options, clock })).toEqual({
      ok: false,
      reason: 'the service answered healthy, then stopped within the 5 s grace period',
    });
  });

  it('reports a degraded service that never recovers', async () => {
    const runtime = new FakeRuntime();
    runtime.runningVersion = '1.3.0';
    runtime.healthy = false;
    const outcome = await waitForHealth(runtime, { ...options, clock: fakeClock() });
    expect(outcome).toEqual({
      ok: false,
      reason: 'not healthy after 30 s: /api/health answers 503: {"status":"degraded"}',
    });
  });

  it('takes 429 (a monitor used up the budget), 503 and silence for "not yet" while the service starts', async () => {
    const runtime = new FakeRuntime();
    runtime.runningVersion = '1.3.0';
    runtime.throttledProbes = 12;
    const clock = fakeClock();
    expect(await waitForHealth(runtime, { ...options, clock })).toMatchObject({ ok: true });
    const silent = new FakeRuntime();
    silent.runningVersion = '1.3.0';
    let probes = 0;
    const probe = silent.probe.bind(silent);
    silent.probe = async (p) => (++probes < 5 ? null : probe(p));
    expect(await waitForHealth(silent, { ...options, clock: fakeClock() })).toMatchObject({ ok: true });
  });

  it('within the grace period, 429 says nothing and a 503 starts the grace period again', async () => {
    const runtime = new FakeRuntime();
    runtime.runningVersion = '1.3.0';
    const clock = fakeClock();
    let probes = 0;
    const probe = runtime.probe.bind(runtime);
    runtime.probe = async (p) => {
      if (p === '/api/health') probes++;
      if (p === '/api/health' && probes === 3) return { status: 429, body: '' };
      if (p === '/api/health' && probes === 4) return { status: 503, body: '{"status":"degraded"}' };
      return probe(p);
    };
    const start = clock.now();
    const outcome = await waitForHealth(runtime, { ...options, clock });
    expect(outcome).toMatchObject({ ok: true });
    // Healthy at 0 s, degraded at 3 s, healthy again at 4 s: 5 s more of grace from there.
    expect(clock.now() - start).toBeGreaterThanOrEqual(9_000);
  });
});
