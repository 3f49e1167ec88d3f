// A stand-in for LibreOffice in tests of the PDF converter: it takes the same arguments (the
// conversion macro's URL last) and writes a tiny PDF to the output path, so queues, time limits
// and clean-up can be tested without an office suite and without timing.
//   node stub-office.mjs [--started=FILE] [--release=FILE] [--fail] [--hang=PIDFILE] <office arguments...>
// --started   write FILE when the conversion starts (a test waits for it)
// --release   wait until FILE exists before writing the PDF (a test holds the queue with it)
// --fail      write an error as the macro would, and no PDF
// --hang      start a child that never ends, write its pid to PIDFILE, and never end either
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const option = (name) => args.find((a) => a.startsWith(`--${name}`))?.split('=')[1] ?? null;
const has = (name) => args.some((a) => a.startsWith(`--${name}`));
const macro = args.at(-1) ?? '';
const urls = [...macro.matchAll(/"([^"]*)"/g)].map((m) => fileURLToPath(m[1]));
if (urls.length !== 3) {
  console.error(`stub-office: no conversion macro in ${macro}`);
  process.exit(2);
}
const [, output, errors] = urls;

const started = option('started');
if (started) writeFileSync(started, String(process.pid));

if (has('hang')) {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore' });
  writeFileSync(option('hang'), String(child.pid));
  setInterval(() => {}, 1 << 30);
} else {
  const finish = () => {
    if (has('fail')) writeFileSync(errors, 'open: the document could not be opened (stub)\n');
    else writeFileSync(output, '%PDF-1.4\n% stub\n%%EOF\n');
  };
  const release = option('release');
  if (!release) finish();
  else {
    const wait = setInterval(() => {
      if (existsSync(release)) {
        clearInterval(wait);
        finish();
      }
    }, 10);
  }
}
