// Several machines: two service processes with their own data directories and no shared disk,
// one S3 store (the test run's Ceph gateway) and organizations on two PostgreSQL servers. Evidence
// uploaded through one is shown, exported to DOCX and PDF and deleted through the other; a process
// killed between writing an object and committing its row leaves nothing dangling, and the sweep
// leaves no orphan.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import PizZip from 'pizzip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger, startEmbeddedServer, createKnex, type EmbeddedServer } from '@service/db';
import { waitUntil } from '@service/db/testing';
import { organizationPrefix, S3ObjectStore, type S3StoreSettings } from '@service/storage';
import { s3Env, s3TestSettings, s3TestsRun } from '@service/storage/testing';
import type { Knex } from 'knex';
import { createActor, type Actor } from './support/identity-fixtures.ts';
import { pngOfColour } from './support/png.ts';
import {
  databaseEnv,
  runAdmin,
  startServiceProcess,
  stopServiceProcess,
  type ServiceProcess,
} from './support/service-process.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

const runs = s3TestsRun();

describe.runIf(runs)('two hosts, one store, two PostgreSQL servers', () => {
  let dir: string;
  let pgDir: string;
  let second: EmbeddedServer;
  let app: TestApp;
  let s3: S3StoreSettings;
  let env: Record<string, string>;
  let betaId: string;
  let betaTenant: Knex;
  const hosts: ServiceProcess[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'file-store-hosts-'));
    pgDir = mkdtempSync(path.join(tmpdir(), 'file-store-hosts-pg-'));
    second = await startEmbeddedServer({
      dataDir: pgDir,
      logger: silentLogger,
      lock: false,
      settings: { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' },
    });
    s3 = await s3TestSettings();
    const settings = { SERVICE_EDITION: 'hosted', TENANT_SERVERS: `eu2=${second.baseUrl}`, ...s3Env(s3) };
    app = await startTestApp(settings, { evaluation: false, rateLimitStore: 'postgres' });
    env = { ...settings, ...databaseEnv(app), RATE_LIMIT_STORE: 'postgres' };
    const created = await runAdmin(
      { ...env, DATA_DIR: path.join(dir, 'admin') },
      'create-organization',
      '--name',
      'Beta',
      '--plan',
      'business',
      '--server',
      'eu2',
      '--admin-email',
      'owner@beta.example',
    );
    expect(created.code, created.stderr).toBe(0);
    betaId = /Created organization Beta \(([0-9a-f-]{36})\)/.exec(created.stdout)![1]!;
    const database = /tenant database (tenant_[0-9a-f]{32})/.exec(created.stdout)![1]!;
    betaTenant = createKnex(`${second.baseUrl}/${database}`, 3);
    await app.dbs.controlPlane('organizations').update({ plan: 'business' });
    // Each host has its own data directory and its own (unused) files directory: no shared disk.
    for (const name of ['host-a', 'host-b'])
      hosts.push(
        await startServiceProcess({
          ...env,
          DATA_DIR: path.join(dir, name),
          FILES_DIR: path.join(dir, name, 'files'),
          UPLOAD_TMP_DIR: path.join(dir, name),
        }),
      );
  }, 300_000);

  afterAll(async () => {
    for (const h of hosts) await stopServiceProcess(h, 'SIGKILL');
    await betaTenant?.destroy();
    await app?.stop();
    await second?.stop();
    for (const d of [dir, pgDir]) if (d) rmSync(d, { recursive: true, force: true });
  }, 120_000);

  async function seed(actor: Actor) {
    const client = await actor.api.post('/clients', { name: 'Hosts' });
    await actor.allow(client.body.id);
    const project = await actor.api.post('/projects', { clientId: client.body.id, name: 'P' });
    const report = await actor.api.post('/reports', { projectId: project.body.id, title: 'Across hosts' });
    const finding = await actor.api.post('/findings', { reportId: report.body.id, title: 'F', severity: 'high' });
    return { reportId: report.body.id as string, findingId: finding.body.id as string };
  }

  const rest = (host: ServiceProcess, actor: Actor, p: string, init: RequestInit = {}) =>
    fetch(`${host.url}/rest/v1${p}`, { ...init, headers: { authorization: `Bearer ${actor.key}`, ...init.headers } });

  async function objectsOf(organizationId: string): Promise<string[]> {
    const store = new S3ObjectStore(s3);
    try {
      const keys: string[] = [];
      for await (const o of store.list(organizationPrefix(organizationId))) keys.push(o.key);
      return keys;
    } finally {
      await store.close();
    }
  }

  const tenantOf = (organizationId: string) => (organizationId === betaId ? betaTenant : app.dbs.tenant);

  it.each(['default', 'eu2'])(
    'evidence of an organization on the %s server: uploaded through one host, shown, exported and deleted through the other',
    async (server) => {
      const organizationId =
        server === 'eu2'
          ? betaId
          : (await app.dbs.controlPlane('organizations').whereNot({ id: betaId }).first('id')).id;
      const actor = await createActor(app, { role: 'admin', organizationId });
      const { reportId, findingId } = await seed(actor);
      const [a, b] = hosts as [ServiceProcess, ServiceProcess];
      const png = pngOfColour(server === 'eu2' ? 200 : 100, 10, 10);
      const form = new FormData();
      form.append('findingId', findingId);
      form.append('file', new Blob([png]), 'shot.png');
      const uploaded = await rest(a, actor, '/evidence-images', { method: 'POST', body: form });
      expect(uploaded.status).toBe(201);
      const { id } = (await uploaded.json()) as { id: string };

      const shown = await rest(b, actor, `/evidence-images/${id}/content`);
      expect(shown.status).toBe(200);
      expect(Buffer.from(await shown.arrayBuffer())).toEqual(png);

      const docx = await rest(b, actor, `/reports/${reportId}/export-docx`);
      expect(docx.status).toBe(200);
      const media = Object.keys(new PizZip(Buffer.from(await docx.arrayBuffer())).files).filter((f) =>
        f.startsWith('word/media/'),
      );
      expect(media.length).toBeGreaterThan(0);
      const pdf = await rest(b, actor, `/reports/${reportId}/export-pdf`);
      expect(pdf.status).toBe(200);
      expect(
        Buffer.from(await pdf.arrayBuffer())
          .subarray(0, 5)
          .toString(),
      ).toBe('%PDF-');

      const key = (await tenantOf(organizationId)('evidence_images').where({ id }).first()).storage_key;
      expect(await objectsOf(organizationId)).toContain(key);
      expect((await rest(b, actor, `/evidence-images/${id}`, { method: 'DELETE' })).status).toBe(204);
      expect((await rest(a, actor, `/evidence-images/${id}/content`)).status).toBe(404);
      expect(await objectsOf(organizationId)).not.toContain(key);
      expect(await tenantOf(organizationId)('unclaimed_objects').pluck('key')).toEqual([]);
    },
    240_000,
  );

  it('a host killed between writing an object and committing its row leaves no row, and the sweep no object', async () => {
    const actor = await createActor(app, { role: 'admin', organizationId: betaId });
    const { findingId } = await seed(actor);
    const before = await objectsOf(betaId);
    // Hold the finding: the upload writes its object, then waits for the finding's lock to commit its row.
    const trx = await betaTenant.transaction();
    await trx('findings').where({ id: findingId }).forUpdate().first();
    const form = new FormData();
    form.append('findingId', findingId);
    form.append('file', new Blob([pngOfColour(1, 2, 3)]), 'never.png');
    const [a] = hosts as [ServiceProcess];
    const answer = rest(a, actor, '/evidence-images', { method: 'POST', body: form }).catch(() => null);
    await waitUntil(
      'the upload waits on the finding',
      async () => {
        const waiting = await betaTenant.raw(
          "select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query ilike '%findings%'",
        );
        return waiting.rows[0].n > 0;
      },
      { timeoutMs: 60_000 },
    );
    const written = (await objectsOf(betaId)).filter((k) => !before.includes(k));
    expect(written).toHaveLength(1);
    const unclaimed = (await betaTenant('unclaimed_objects').pluck('key')) as string[];
    expect(unclaimed, JSON.stringify({ unclaimed, written, before })).toEqual(written);
    await stopServiceProcess(hosts.shift(), 'SIGKILL');
    await answer;
    await trx.rollback();

    expect(await betaTenant('evidence_images').where({ finding_id: findingId }).first()).toBeUndefined();
    const sweep = await runAdmin(
      { ...env, DATA_DIR: path.join(dir, 'admin') },
      'sweep-files',
      '--older-than-minutes',
      '0',
      '--organization',
      betaId,
    );
    expect(sweep.code, sweep.stderr).toBe(0);
    expect(sweep.stdout).toContain(`Organization ${betaId}: 1 objects removed, 0 still named by a row and kept.`);
    const named = [
      ...((await betaTenant('evidence_images').pluck('storage_key')) as string[]),
      ...((await betaTenant('report_styles')
        .whereNotNull('template_storage_key')
        .pluck('template_storage_key')) as string[]),
    ];
    expect((await objectsOf(betaId)).sort()).toEqual(
      named.filter((k) => k.startsWith(organizationPrefix(betaId))).sort(),
    );
    expect(await betaTenant('unclaimed_objects').pluck('key')).toEqual([]);
    // Running it again finds nothing to do.
    const again = await runAdmin(
      { ...env, DATA_DIR: path.join(dir, 'admin') },
      'sweep-files',
      '--older-than-minutes',
      '0',
    );
    expect(again.stdout).toMatch(/Swept 2 organization\(s\): 0 objects removed/);
  }, 240_000);
});
