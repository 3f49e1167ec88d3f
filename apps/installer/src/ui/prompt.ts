import { createInterface, type Interface } from 'node:readline';

/** Asks the operator yes/no questions. */
export interface Prompt {
  /** The answer, or `defaultAnswer` on an empty line or when input has ended. */
  confirm(question: string, defaultAnswer: boolean): Promise<boolean>;
  /** Whether a person can answer (a terminal) rather than a script or nothing. */
  readonly interactive: boolean;
  close(): void;
}

/**
 * Reads answers line by line from stdin, a terminal or a pipe (`printf 'y\n' | install.sh ...`
 * answers scripted), and gives the default once input has ended.
 */
export function createPrompt(
  input: NodeJS.ReadableStream & { isTTY?: boolean },
  output: NodeJS.WritableStream,
  echo: (line: string) => void,
): Prompt {
  let rl: Interface | null = null;
  const lines: string[] = [];
  const waiting: Array<(line: string | null) => void> = [];
  let ended = false;
  const open = () => {
    if (rl) return;
    rl = createInterface({ input, terminal: false });
    rl.on('line', (line) => {
      const next = waiting.shift();
      if (next) next(line);
      else lines.push(line);
    });
    rl.on('close', () => {
      ended = true;
      for (const w of waiting.splice(0)) w(null);
    });
  };
  const nextLine = (): Promise<string | null> => {
    open();
    if (lines.length > 0) return Promise.resolve(lines.shift()!);
    if (ended) return Promise.resolve(null);
    return new Promise((resolve) => waiting.push(resolve));
  };
  return {
    interactive: input.isTTY === true,
    async confirm(question, defaultAnswer) {
      output.write(`${question} ${defaultAnswer ? '[Y/n]' : '[y/N]'} `);
      const line = await nextLine();
      const answer = line === null || line.trim() === '' ? defaultAnswer : /^y(es)?$/i.test(line.trim());
      output.write(line === null ? `${defaultAnswer ? 'yes' : 'no'} (no input)\n` : input.isTTY ? '' : '\n');
      echo(`${question} -> ${answer ? 'yes' : 'no'}${line === null ? ' (default, no input)' : ''}`);
      return answer;
    },
    close() {
      rl?.close();
      // Why: readline keeps stdin flowing and would keep the process alive.
      (input as NodeJS.ReadStream).pause?.();
    },
  };
}
