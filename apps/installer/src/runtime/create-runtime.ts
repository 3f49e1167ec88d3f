import type { InstallerConfig } from '../installer-config.ts';
import { DockerRuntime } from './docker-runtime.ts';
import { LocalProcessRuntime } from './local-process-runtime.ts';
import type { ServiceRuntime } from './service-runtime.ts';

/** The runtime for an installation directory, as the installer's configuration chooses. */
export function createRuntime(config: InstallerConfig, home: string, log: (line: string) => void): ServiceRuntime {
  if (config.runtime === 'local-process') return new LocalProcessRuntime({ home, ...config.local, log });
  return new DockerRuntime({ home, env: config.engineEnv, log });
}
