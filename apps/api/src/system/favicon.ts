import { createHash } from 'node:crypto';
import { ifNoneMatchHits } from '@service/http';
import type { AppContext } from '../app-context.ts';

const SIZE = 32;
/** Supersampling per axis: the edges are anti-aliased from SUBSAMPLES² samples per pixel. */
const SUBSAMPLES = 4;
const ACCENT = [0x1f, 0x5f, 0xbf] as const;
const WHITE = [0xff, 0xff, 0xff] as const;

type Point = readonly [number, number];

/** Even-odd test of a point against a polygon, in the icon's unit square. */
function inPolygon([x, y]: Point, polygon: readonly Point[]): boolean {
  let inside = false;
  for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i, i += 1) {
    const [xi, yi] = polygon[i]!;
    const [xj, yj] = polygon[j]!;
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/** Distance from a point to a segment. */
function toSegment([x, y]: Point, [ax, ay]: Point, [bx, by]: Point): number {
  const dx = bx - ax;
  const dy = by - ay;
  const t = Math.max(0, Math.min(1, ((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(x - (ax + t * dx), y - (ay + t * dy));
}

function inRoundedSquare([x, y]: Point, radius: number): boolean {
  const cx = Math.min(Math.max(x, radius), 1 - radius);
  const cy = Math.min(Math.max(y, radius), 1 - radius);
  return Math.hypot(x - cx, y - cy) <= radius;
}

const SHIELD: readonly Point[] = [
  [0.26, 0.2],
  [0.5, 0.14],
  [0.74, 0.2],
  [0.74, 0.5],
  [0.5, 0.86],
  [0.26, 0.5],
];
const CHECK: readonly Point[] = [
  [0.37, 0.5],
  [0.47, 0.61],
  [0.64, 0.38],
];

/** The colour and coverage of one sample: the accent square, the white shield, the accent check mark on it. */
function sample(p: Point): { rgb: readonly number[]; covered: boolean } {
  if (!inRoundedSquare(p, 0.2)) return { rgb: ACCENT, covered: false };
  const onCheck = toSegment(p, CHECK[0]!, CHECK[1]!) < 0.055 || toSegment(p, CHECK[1]!, CHECK[2]!) < 0.055;
  return { rgb: inPolygon(p, SHIELD) && !onCheck ? WHITE : ACCENT, covered: true };
}

/**
 * The service's icon as a Windows icon file: one 32x32 image, 32-bit BGRA with alpha (what every
 * browser reads at `/favicon.ico`), drawn here so no binary file has to be kept in the repository.
 */
export function faviconIco(): Buffer {
  const pixels = Buffer.alloc(SIZE * SIZE * 4);
  for (let row = 0; row < SIZE; row += 1)
    for (let col = 0; col < SIZE; col += 1) {
      const sum = [0, 0, 0];
      let covered = 0;
      for (let sy = 0; sy < SUBSAMPLES; sy += 1)
        for (let sx = 0; sx < SUBSAMPLES; sx += 1) {
          const s = sample([(col + (sx + 0.5) / SUBSAMPLES) / SIZE, (row + (sy + 0.5) / SUBSAMPLES) / SIZE]);
          if (!s.covered) continue;
          covered += 1;
          for (let c = 0; c < 3; c += 1) sum[c]! += s.rgb[c]!;
        }
      // Why bottom-up: icon bitmaps store their rows from the last to the first.
      const at = ((SIZE - 1 - row) * SIZE + col) * 4;
      if (covered > 0) {
        pixels[at] = Math.round(sum[2]! / covered);
        pixels[at + 1] = Math.round(sum[1]! / covered);
        pixels[at + 2] = Math.round(sum[0]! / covered);
      }
      pixels[at + 3] = Math.round((255 * covered) / SUBSAMPLES ** 2);
    }
  const mask = Buffer.alloc((SIZE / 8) * SIZE); // all zero: the alpha channel decides
  const info = Buffer.alloc(40);
  info.writeUInt32LE(40, 0); // header size
  info.writeInt32LE(SIZE, 4);
  info.writeInt32LE(SIZE * 2, 8); // colour bitmap and mask, stacked
  info.writeUInt16LE(1, 12); // planes
  info.writeUInt16LE(32, 14); // bits per pixel
  info.writeUInt32LE(pixels.length + mask.length, 20);
  const image = Buffer.concat([info, pixels, mask]);
  const header = Buffer.alloc(6 + 16);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2); // an icon
  header.writeUInt16LE(1, 4); // one image
  header.writeUInt8(SIZE, 6);
  header.writeUInt8(SIZE, 7);
  header.writeUInt16LE(1, 10); // planes
  header.writeUInt16LE(32, 12); // bits per pixel
  header.writeUInt32LE(image.length, 14);
  header.writeUInt32LE(header.length, 18);
  return Buffer.concat([header, image]);
}

/** `GET /favicon.ico`: browsers ask for it on every page of the service (the API reference too). */
export function registerFavicon(app: AppContext): void {
  let icon: { bytes: Buffer; etag: string } | null = null;
  app.registry.addUndocumentedRoute('GET', '/favicon.ico', "the service's icon, which browsers ask for");
  app.router.get('/favicon.ico', (ctx) => {
    if (!icon) {
      const bytes = faviconIco();
      icon = { bytes, etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 22)}"` };
    }
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.type = 'image/x-icon';
    ctx.etag = icon.etag;
    ctx.status = 200;
    if (ifNoneMatchHits(ctx.get('If-None-Match'), icon.etag)) {
      ctx.status = 304;
      return;
    }
    ctx.body = icon.bytes;
  });
}
