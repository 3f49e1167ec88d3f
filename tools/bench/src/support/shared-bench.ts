import { existsSync } from 'node:fs';
import path from 'node:path';

/** The seeded scanner file generators: `../shared/bench` beside the repository, as the fixtures are. */
export const SHARED_BENCH_DIR = path.resolve(import.meta.dirname, '../../../../../shared/bench');

/** The path of one generator script, or an error saying where it was looked for. */
export function benchGenerator(script: 'gen_nessus.py' | 'gen_burp.py' | 'gen_nuclei.py'): string {
  const file = path.join(SHARED_BENCH_DIR, script);
  if (!existsSync(file))
    throw new Error(
      `The benchmark needs the seeded generator ${script} in ${SHARED_BENCH_DIR} (../shared/bench beside ` +
        'the repository), which is not there.',
    );
  return file;
}
