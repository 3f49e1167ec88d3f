import { describe, expect, it } from 'vitest';
import { defineCommand, type AnyCommand } from './command-definition.ts';
import { BUG_EXIT_CODE, OperatorError } from './operator-error.ts';
import { executeCli, USAGE_EXIT_CODE, type RunCliOptions } from './run-cli.ts';

interface Ctx {
  calls: unknown[];
  disposed: boolean;
}

const greet = defineCommand<Ctx, { name: string; loud?: boolean; tag: string[]; greeting: string }>({
  name: 'greet',
  summary: 'Greets someone',
  arguments: [{ name: 'name', description: 'who to greet' }],
  options: [
    { flags: '--loud', description: 'shout' },
    { flags: '--tag <tag>', description: 'a label', repeatable: true },
    { flags: '--greeting <word>', description: 'the word', default: 'hello' },
  ],
  examples: ['cli greet Ada --loud'],
  run(ctx, input) {
    ctx.calls.push(input);
  },
});

const fail = defineCommand<Ctx, { kind: string; dryRun?: boolean }>({
  name: 'fail',
  summary: 'Fails on purpose',
  options: [
    { flags: '--kind <kind>', description: 'how', required: true, choices: ['operator', 'bug', 'foreign'] },
    { flags: '--dry-run', description: 'only say' },
  ],
  run(_ctx, input) {
    if (input.kind === 'operator')
      throw new OperatorError('the widget 7 is broken', { hint: 'Run `cli repair 7`.', exitCode: 3 });
    if (input.kind === 'foreign') throw Object.assign(new Error('bad setting PORT'), { foreign: true });
    throw new TypeError('cannot read properties of undefined');
  },
});

async function run(argv: string[], extra: Partial<RunCliOptions<Ctx>> = {}) {
  const ctx: Ctx = { calls: [], disposed: false };
  let stdout = '';
  let stderr = '';
  let contexts = 0;
  const code = await executeCli<Ctx>({
    name: 'cli',
    description: 'A test CLI',
    commands: [greet, fail] as AnyCommand<Ctx>[],
    context: () => {
      contexts++;
      return ctx;
    },
    dispose: (c) => {
      c.disposed = true;
    },
    argv,
    output: { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) },
    ...extra,
  });
  return { code, stdout, stderr, ctx, contexts };
}

describe('executeCli', () => {
  it('passes options and named arguments to run as one object, then disposes the context', async () => {
    const r = await run(['greet', 'Ada', '--loud', '--tag', 'a', '--tag', 'b']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.ctx.calls).toEqual([{ name: 'Ada', loud: true, tag: ['a', 'b'], greeting: 'hello' }]);
    expect(r.ctx.disposed).toBe(true);
  });

  it('gives an empty list for a repeatable option never given, and camelCases dashed options', async () => {
    const r = await run(['greet', 'Bo']);
    expect(r.ctx.calls).toEqual([{ name: 'Bo', tag: [], greeting: 'hello' }]);
    const dry = await run(['fail', '--kind', 'operator', '--dry-run']);
    expect(dry.code).toBe(3);
  });

  it('prints an operator error as one line plus a hint line, with its exit code, and still disposes', async () => {
    const r = await run(['fail', '--kind', 'operator']);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe('error: the widget 7 is broken\nhint: Run `cli repair 7`.\n');
    expect(r.stdout).toBe('');
    expect(r.ctx.disposed).toBe(true);
  });

  it('calls an unexpected error a bug in one line, and shows the stack only with --debug', async () => {
    const r = await run(['fail', '--kind', 'bug']);
    expect(r.code).toBe(BUG_EXIT_CODE);
    expect(r.stderr).toBe(
      'error: unexpected failure in cli fail; this is a bug: cannot read properties of ' +
        'undefined\nhint: Run the same command again with --debug to see the stack trace, ' +
        'and report it.\n',
    );
    for (const argv of [
      ['fail', '--kind', 'bug', '--debug'],
      ['--debug', 'fail', '--kind', 'bug'],
    ]) {
      const debug = await run(argv);
      expect(debug.code).toBe(BUG_EXIT_CODE);
      expect(debug.stderr).toMatch(
        /^error: unexpected failure in cli fail; this is a bug: cannot read properties of undefined\nTypeError: cannot read[^\n]*\n\s+at /,
      );
    }
  });

  it('lets a CLI translate errors of lower layers that carry an operator message', async () => {
    const r = await run(['fail', '--kind', 'foreign'], {
      translateError: (err) =>
        (err as { foreign?: boolean }).foreign
          ? new OperatorError((err as Error).message, { hint: 'Fix .env.' })
          : undefined,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('error: bad setting PORT\nhint: Fix .env.\n');
  });

  it('reports a context that cannot be built like any other error', async () => {
    const r = await run(['greet', 'x'], {
      context: () => {
        throw new OperatorError('LICENSE_FILE /nope does not exist', { hint: 'Set LICENSE_FILE to the licence file.' });
      },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('error: LICENSE_FILE /nope does not exist\nhint: Set LICENSE_FILE to the licence file.\n');
  });

  it.each([
    [['greet'], /^error: greet needs the argument <name>\nhint: Run `cli greet --help` for its options\.\n$/],
    [['fail'], /^error: fail needs --kind <kind>\nhint: Run `cli fail --help`/],
    [
      ['fail', '--kind', 'other'],
      /^error: fail: option '--kind <kind>' argument 'other' is invalid\. Allowed choices are operator, bug, foreign\.\nhint:/,
    ],
    [['fail', '--kindd', 'bug'], /^error: fail: unknown option --kindd\n/],
    [['greet', 'x', '--nope'], /^error: greet: unknown option --nope\nhint: Run `cli greet --help`/],
    [['greet', 'x', '--tag'], /^error: greet: option --tag <tag> needs a value\n/],
    [['greet', 'x', 'y'], /^error: greet: too many arguments for 'greet'\. Expected 1 argument but got 2\.\n/],
    [
      ['frobnicate'],
      /^error: unknown command "frobnicate"; commands are greet, fail\nhint: Run `cli --help` for the list of commands\.\n$/,
    ],
    [['--nope'], /^error: unknown option --nope\nhint: Run `cli --help`/],
  ])('explains the command line %j in one line and exits 2, without building a context', async (argv, pattern) => {
    const r = await run(argv);
    expect(r.stderr).toMatch(pattern);
    expect(r.code).toBe(USAGE_EXIT_CODE);
    expect(r.contexts).toBe(0);
  });

  it('shows help with examples on stdout and exits 0', async () => {
    const r = await run(['greet', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: cli greet [options] <name>');
    expect(r.stdout).toContain('Examples:\n  cli greet Ada --loud');
    expect(r.contexts).toBe(0);
    const overview = await run(['--help']);
    expect(overview.code).toBe(0);
    expect(overview.stdout).toMatch(/greet[^\n]*Greets someone[\s\S]*fail[^\n]*Fails on purpose/);
  });

  it('prints the overview and an error when no command is given', async () => {
    const r = await run([]);
    expect(r.code).toBe(USAGE_EXIT_CODE);
    expect(r.stdout).toContain('Commands:');
    expect(r.stderr).toMatch(/^error: no command given\n/);
  });

  it('runs the default command when the first word is not a command name', async () => {
    const main = defineCommand<Ctx, { version: string }>({
      name: 'build',
      summary: 'Builds',
      isDefault: true,
      arguments: [{ name: 'version', description: 'X.Y.Z' }],
      run: (ctx, i) => void ctx.calls.push(i),
    });
    const r = await run(['1.2.3'], { commands: [main] as AnyCommand<Ctx>[] });
    expect(r.code).toBe(0);
    expect(r.ctx.calls).toEqual([{ version: '1.2.3' }]);
  });
});

describe('OperatorError', () => {
  it('defaults to exit code 1 and refuses codes a shell would misread', () => {
    expect(new OperatorError('x').exitCode).toBe(1);
    expect(() => new OperatorError('x', { exitCode: 0 })).toThrow(RangeError);
    expect(() => new OperatorError('x', { exitCode: 130 })).toThrow(RangeError);
  });
});
