import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { OperatorError } from '@service/cli-kit';
import { execa } from 'execa';
import type { ImageEngine } from './image-engine.ts';

/** The `docker` found on PATH; the only place the release tool runs it (through execa). */
export class DockerCli implements ImageEngine {
  readonly program: string;

  constructor(private readonly env: NodeJS.ProcessEnv) {
    this.program = findOnPath('docker', env.PATH ?? '');
  }

  async serverVersion(): Promise<string> {
    const result = await this.run(
      ['version', '--format', '{{.Server.Version}}'],
      'reach the container engine',
      'Start Docker (or put a `docker` that reaches an engine first on PATH) and build again.',
    );
    return String(result.stdout).trim();
  }

  async build(options: {
    contextDir: string;
    dockerfile: string;
    tag: string;
    buildArgs: Record<string, string>;
  }): Promise<void> {
    const buildArgs = Object.entries(options.buildArgs).flatMap(([k, v]) => ['--build-arg', `${k}=${v}`]);
    await this.run(
      ['build', '--quiet', '--file', options.dockerfile, '--tag', options.tag, ...buildArgs, options.contextDir],
      `build ${options.tag}`,
      'Read the build output above; `docker build` needs network access for the npm packages.',
    );
  }

  async imageId(reference: string): Promise<string | null> {
    const result = await execa(this.program, ['image', 'inspect', '--format', '{{.Id}}', reference], {
      env: this.env,
      reject: false,
    });
    if (result.exitCode !== 0) return null;
    return result.stdout.trim();
  }

  async pull(reference: string): Promise<void> {
    await this.run(
      ['pull', reference],
      `pull ${reference}`,
      `Pull it on a machine with access to its registry, or \`docker load\` it, then build again.`,
    );
  }

  async save(reference: string, file: string): Promise<void> {
    await this.run(
      ['save', '--output', file, reference],
      `save ${reference}`,
      'Check the free space in the output folder.',
    );
  }

  private async run(args: string[], what: string, hint: string): Promise<{ stdout: string }> {
    const result = await execa(this.program, args, { env: this.env, reject: false, stdin: 'ignore' });
    if (result.exitCode !== 0 || result.failed) {
      const detail = `${result.stderr}`.trim().split('\n').pop() || result.shortMessage;
      throw new OperatorError(`could not ${what} with ${this.program}: ${detail}`, { hint });
    }
    return { stdout: String(result.stdout) };
  }
}

function findOnPath(name: string, pathVariable: string): string {
  for (const dir of pathVariable.split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  throw new OperatorError('no `docker` command on PATH; the release needs it to build and save the images', {
    hint: 'Install Docker (or put a docker-compatible CLI first on PATH) and build again.',
  });
}
