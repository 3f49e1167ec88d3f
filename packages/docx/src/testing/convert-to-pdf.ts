import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Whether LibreOffice (soffice) and pdftotext are on this machine. */
export function officeAvailable(): boolean {
  return (
    spawnSync('soffice', ['--version'], { encoding: 'utf8' }).status === 0 &&
    spawnSync('pdftotext', ['-v'], { encoding: 'utf8' }).status === 0
  );
}

/**
 * Converts DOCX files to PDF with LibreOffice headless, each run with its own profile directory
 * (parallel runs do not clash), and returns each PDF's text (pdftotext). `keep` names a folder to
 * leave the PDFs in for looking at.
 */
export function convertDocxToPdfText(
  docs: Record<string, Uint8Array>,
): Record<string, { text: string; pdf: Uint8Array }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'docx-pdf-'));
  try {
    const inputs = Object.entries(docs).map(([name, bytes]) => {
      const file = path.join(dir, `${name}.docx`);
      writeFileSync(file, bytes);
      return file;
    });
    const run = spawnSync(
      'soffice',
      [`-env:UserInstallation=file://${dir}/profile`, '--headless', '--convert-to', 'pdf', '--outdir', dir, ...inputs],
      { encoding: 'utf8', timeout: 600_000 },
    );
    if (run.status !== 0) throw new Error(`soffice failed (${run.status}): ${run.stderr}`);
    const out: Record<string, { text: string; pdf: Uint8Array }> = {};
    for (const name of Object.keys(docs)) {
      const pdf = path.join(dir, `${name}.pdf`);
      const text = spawnSync('pdftotext', ['-enc', 'UTF-8', pdf, '-'], {
        encoding: 'utf8',
        maxBuffer: 512 * 1024 * 1024,
      });
      if (text.status !== 0)
        throw new Error(`pdftotext failed for ${name}: ${text.stderr} (soffice said: ${run.stdout} ${run.stderr})`);
      out[name] = { text: text.stdout, pdf: readFileSync(pdf) };
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
