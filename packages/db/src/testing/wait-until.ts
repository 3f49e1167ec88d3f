/**
 * Waits until `condition` holds (returns a value other than false, null or undefined), checking
 * every `intervalMs`, and returns that value; fails naming `what` after `timeoutMs`. Tests wait on
 * conditions with it, never on a fixed time.
 */
export async function waitUntil<T>(
  what: string,
  condition: () => T | Promise<T>,
  { timeoutMs = 30_000, intervalMs = 25 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<Exclude<T, false | null | undefined>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value !== false && value !== null && value !== undefined) return value as Exclude<T, false | null | undefined>;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
