import type { FaultInjector } from '../journal/fault-injection.ts';
import type { ServiceRuntime } from '../runtime/service-runtime.ts';
import type { Clock } from '../runtime/wait-for-health.ts';
import type { Reporter } from '../ui/reporter.ts';

/** What every journaled operation (upgrade, restore, import, recover) works with. */
export interface OperationContext {
  home: string;
  runtime: ServiceRuntime;
  reporter: Reporter;
  clock: Clock;
  now: () => Date;
  healthTimeoutMs: number;
  healthGraceMs: number;
  faults: FaultInjector;
  /** The run's log file, for the journal and messages. */
  logFile: string | null;
}
