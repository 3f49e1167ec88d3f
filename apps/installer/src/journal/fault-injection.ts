/**
 * Test-only fault injection (SERVICE_INSTALLER_TEST_FAULT): lets the tests crash the installer at
 * a phase boundary or fill the disk there, to show that `status` and `recover` handle what is
 * left. Points are `<operation>:<phase>:started|done`, reached right after the journal recorded
 * them. Without a fault every call is a no-op.
 */
export interface FaultInjector {
  /** Called right after the journal durably recorded a point. */
  reached(point: string): Promise<void>;
  /** Called before the installer writes into the installation directory; throws while the disk is "full". */
  beforeWrite(what: string): void;
}

export type FaultKind = 'kill' | 'enospc' | 'hang';

export interface FaultSpec {
  kind: FaultKind;
  point: string;
}

export const NO_FAULTS: FaultInjector = {
  reached: async () => {},
  beforeWrite: () => {},
};

const SPEC = /^(kill|enospc)@([a-z-]+:[a-z-]+:(?:started|done))$/;

/** `kill@upgrade:files:started`, `enospc@upgrade:files:started`; null for an empty value, a RangeError otherwise. */
export function parseFaultSpec(raw: string | undefined): FaultSpec | null {
  const text = raw?.trim() ?? '';
  if (text === '') return null;
  const match = SPEC.exec(text);
  if (!match) throw new RangeError(`"${text}" is not <kill|enospc>@<operation>:<phase>:<started|done>`);
  return { kind: match[1] as FaultKind, point: match[2]! };
}

/**
 * The injector for a fault: `kill` sends SIGKILL to this process (nothing after the point runs,
 * as after a power loss or `kill -9`); `enospc` makes every later write fail with ENOSPC, as a
 * full disk does; `hang` (in-process tests) never returns, which is what a killed process looks
 * like from the outside without ending the test runner.
 */
export function createFaultInjector(spec: FaultSpec | null, log: (line: string) => void = () => {}): FaultInjector {
  if (spec === null) return NO_FAULTS;
  let diskFull = false;
  return {
    async reached(point) {
      if (point !== spec.point) return;
      log(`test fault: ${spec.kind} at ${point}`);
      if (spec.kind === 'enospc') {
        diskFull = true;
        return;
      }
      if (spec.kind === 'kill') process.kill(process.pid, 'SIGKILL');
      await new Promise<never>(() => {});
    },
    beforeWrite(what) {
      if (!diskFull) return;
      throw Object.assign(new Error(`ENOSPC: no space left on device, write (${what})`), {
        code: 'ENOSPC',
        errno: -28,
      });
    },
  };
}
