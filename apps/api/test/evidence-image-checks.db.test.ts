// Images are checked before they are kept (issue 27 item 2): pixels in all, on each side and
// decoded, and complete pixel data; a refused upload answers 422 naming the limit and stores nothing.
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor, type Actor } from './support/identity-fixtures.ts';
import { startTestApp, type TestApp } from './support/start-test-app.ts';

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A PNG whose header says `width` × `height` (one row of pixel data follows, so it is small). */
function pngClaiming(width: number, height: number, depth = 8, colourType = 2): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([depth, colourType, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.alloc(1 + Math.min(width, 64) * 3))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

let app: TestApp;
let actor: Actor;
let findingId: string;

beforeAll(async () => {
  app = await startTestApp();
  actor = await createActor(app, { role: 'admin' });
  const client = await actor.api.post('/clients', { name: 'Images' });
  await actor.allow(client.body.id);
  const project = await actor.api.post('/projects', { clientId: client.body.id, name: 'P' });
  const report = await actor.api.post('/reports', { projectId: project.body.id, title: 'R' });
  findingId = (await actor.api.post('/findings', { reportId: report.body.id, title: 'F', severity: 'low' })).body.id;
}, 120_000);
afterAll(async () => {
  await app?.stop();
});

const upload = (bytes: Buffer) => {
  const form = new FormData();
  form.append('findingId', findingId);
  form.append('file', new Blob([bytes]), 'image.png');
  return actor.api.post('/evidence-images', form);
};

describe('evidence image checks at upload', () => {
  it.each([
    ['20,000 × 20,000 pixels', pngClaiming(20_000, 20_000), /has 400,000,000 pixels .*at most 40,000,000/],
    ['30,000 pixels on one side', pngClaiming(30_000, 100), /at most 20,000 pixels on each side/],
    ['320 MB decoded (16-bit RGBA)', pngClaiming(8_000, 5_000, 16, 6), /takes 306 MB decoded .*at most 256 MB/],
  ])('refuses %s with 422 image_too_large naming the limit, storing nothing', async (_name, bytes, message) => {
    const before = await app.dbs.tenant('evidence_images').count({ n: '*' });
    const res = await upload(bytes);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('image_too_large');
    expect(res.body.error.message).toMatch(message);
    expect(res.body.error.details[0].path).toBe('/file');
    expect(await app.dbs.tenant('evidence_images').count({ n: '*' })).toEqual(before);
    expect(await app.dbs.tenant('unclaimed_objects').pluck('key')).toEqual([]);
  });

  it('refuses a zero-size and a truncated image with 422 invalid_image', async () => {
    const zero = await upload(pngClaiming(0, 0));
    expect(zero.status).toBe(422);
    expect(zero.body.error.code).toBe('invalid_image');
    const noise = Buffer.alloc(300 * 300 * 3).map((_, i) => (i * 7919) % 251);
    const png = await sharp(noise, { raw: { width: 300, height: 300, channels: 3 } })
      .png()
      .toBuffer();
    const truncated = await upload(png.subarray(0, Math.floor(png.length * 0.6)));
    expect(truncated.status).toBe(422);
    expect(truncated.body.error).toMatchObject({ code: 'invalid_image', message: expect.stringMatching(/truncated/) });
    const jpeg = await sharp(noise, { raw: { width: 300, height: 300, channels: 3 } })
      .jpeg()
      .toBuffer();
    expect((await upload(jpeg.subarray(0, Math.floor(jpeg.length * 0.6)))).body.error.code).toBe('invalid_image');
    // The whole images are accepted.
    expect((await upload(png)).status).toBe(201);
    expect((await upload(jpeg)).status).toBe(201);
  });

  it('accepts a long scrolled page within the limits', async () => {
    const tall = await sharp({ create: { width: 1200, height: 19_000, channels: 3, background: '#ffffff' } })
      .png()
      .toBuffer();
    expect((await upload(tall)).status).toBe(201);
  });
});
