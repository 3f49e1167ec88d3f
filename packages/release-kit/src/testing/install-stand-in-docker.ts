import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'stand-in-docker.mjs');

/** One recorded call of the stand-in `docker`. */
export interface DockerCall {
  args: string[];
  cwd: string;
  /** Names of the SERVICE_* environment variables the call got (never their values). */
  serviceEnv: string[];
}

export interface StandInAnswer {
  /** Regular expression tested against the arguments joined by spaces. */
  match: string;
  stdout?: string;
  stderr?: string;
  code?: number;
}

export interface StandInDocker {
  /** Put this first on PATH. */
  binDir: string;
  stateDir: string;
  /** PATH with binDir first. */
  path: string;
  calls(): DockerCall[];
  /** Arguments of each call, joined by spaces: what the tests compare. */
  commandLines(): string[];
  /** Answers tried before the built-in behaviour, first match wins. */
  setAnswers(answers: StandInAnswer[]): void;
  clearCalls(): void;
}

/**
 * Installs the stand-in `docker` (stand-in-docker.mjs) into `<dir>/bin` with its state in
 * `<dir>/state`. The wrapper script names this Node.js and the state folder, so the stand-in works
 * under any PATH and environment the code under test passes on.
 */
export function installStandInDocker(dir: string): StandInDocker {
  const binDir = path.join(dir, 'bin');
  const stateDir = path.join(dir, 'state');
  mkdirSync(binDir, { recursive: true });
  mkdirSync(stateDir, { recursive: true });
  const wrapper = path.join(binDir, 'docker');
  writeFileSync(
    wrapper,
    `#!/bin/sh\nSTAND_IN_DOCKER_STATE='${stateDir}' exec '${process.execPath}' '${SCRIPT}' "$@"\n`,
  );
  chmodSync(wrapper, 0o755);
  const callsFile = path.join(stateDir, 'calls.jsonl');
  const calls = (): DockerCall[] =>
    existsSync(callsFile)
      ? readFileSync(callsFile, 'utf8')
          .split('\n')
          .filter((l) => l !== '')
          .map((l) => JSON.parse(l) as DockerCall)
      : [];
  return {
    binDir,
    stateDir,
    path: `${binDir}${path.delimiter}${process.env.PATH ?? ''}`,
    calls,
    commandLines: () => calls().map((c) => c.args.join(' ')),
    setAnswers: (answers) => writeFileSync(path.join(stateDir, 'answers.json'), JSON.stringify(answers)),
    clearCalls: () => writeFileSync(callsFile, ''),
  };
}
