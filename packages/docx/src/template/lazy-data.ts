/** Values of a template scope: what docxtemplater reads its tags from. */
export type Data = Record<string, unknown>;

/** A function computed once, on its first call. */
export function once<T>(compute: () => T): () => T {
  let done = false;
  let value: T;
  return () => {
    if (!done) {
      value = compute();
      done = true;
    }
    return value;
  };
}

/**
 * An object whose `lazy` values are computed when a tag first reads them, then kept. Why: a
 * template uses a few of the tags; docxtemplater reads only the tags a template has, so what no
 * tag reads (a Markdown field as paragraphs, the severity chart, the evidence plan) is never built.
 */
export function withLazy(values: Data, lazy: Record<string, () => unknown>, uses: (name: string) => boolean): Data {
  // Why getters that stay (memoised) rather than values written on first read: every object of a
  // kind keeps one shape, which keeps docxtemplater's lookups fast. A name no tag of the template
  // has is left out: docxtemplater never looks it up.
  for (const [key, compute] of Object.entries(lazy)) if (uses(key)) lazyValue(values, key, compute);
  return values;
}

/** Sets `key` of `values` to what `compute` gives when it is first read, kept from then on. */
export function lazyValue(values: Data, key: string, compute: () => unknown): void {
  Object.defineProperty(values, key, { enumerable: true, configurable: true, get: once(compute) });
}

/** A function of a key computed once per key, on its first call with it. */
export function onceEach<K, V>(compute: (key: K) => V): (key: K) => V {
  const values = new Map<K, V>();
  return (key) => {
    if (values.has(key)) return values.get(key) as V;
    const value = compute(key);
    values.set(key, value);
    return value;
  };
}

/** A function of an object computed once per object (kept as long as the object lives). */
export function oncePer<K extends object, V>(compute: (key: K) => V): (key: K) => V {
  const values = new WeakMap<K, V>();
  return (key) => {
    if (values.has(key)) return values.get(key) as V;
    const value = compute(key);
    values.set(key, value);
    return value;
  };
}
