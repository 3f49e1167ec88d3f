import { createHash } from 'node:crypto';
import type { ObjectStore } from './object-store.ts';
import { ObjectNotFoundError } from './store-errors.ts';

/** An object a row names, with the size and SHA-256 the row records for it. */
export interface ExpectedObject {
  key: string;
  size: number;
  sha256: string;
}

export type CopyOutcome =
  | { key: string; result: 'copied' | 'verified' | 'replaced'; bytes: number }
  | { key: string; result: 'failed'; reason: string };

async function sha256Of(store: ObjectStore, key: string): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of (await store.get(key)).body) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { sha256: hash.digest('hex'), size };
}

/**
 * Makes `target` hold `object` exactly as its row records it: an object already there is read back
 * and kept when its SHA-256 matches (so a copy that was interrupted is resumed, not redone), replaced
 * when it differs; a missing one is streamed from `source`, hashed on the way, and removed again when
 * the bytes are not the recorded ones. Never throws for one object: the outcome says what happened.
 */
export async function copyObject(
  source: ObjectStore,
  target: ObjectStore,
  object: ExpectedObject,
): Promise<CopyOutcome> {
  const { key } = object;
  try {
    let replaced = false;
    if (await target.head(key)) {
      const there = await sha256Of(target, key);
      if (there.sha256 === object.sha256) return { key, result: 'verified', bytes: there.size };
      await target.remove(key);
      replaced = true;
    }
    const read = await source.get(key).catch((err: unknown) => {
      if (err instanceof ObjectNotFoundError) throw new Error('missing in the source store');
      throw err;
    });
    const stored = await target.put(key, read.body, read.size);
    if (stored.sha256 !== object.sha256 || stored.size !== object.size) {
      await target.remove(key);
      return { key, result: 'failed', reason: 'the source bytes differ from the SHA-256 their row records' };
    }
    // Why read it back: the copy is verified as the target stores it, not as it was sent.
    const back = await sha256Of(target, key);
    if (back.sha256 !== object.sha256) return { key, result: 'failed', reason: 'the copy reads back differently' };
    return { key, result: replaced ? 'replaced' : 'copied', bytes: stored.size };
  } catch (err) {
    return { key, result: 'failed', reason: (err as Error).message };
  }
}

/** Copies `objects` a few at a time, reporting each outcome as it comes. */
export async function copyObjects(
  source: ObjectStore,
  target: ObjectStore,
  objects: readonly ExpectedObject[],
  onOutcome: (outcome: CopyOutcome) => void,
  concurrency = 4,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < objects.length) {
      const object = objects[next++]!;
      onOutcome(await copyObject(source, target, object));
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, objects.length) }, worker));
}
