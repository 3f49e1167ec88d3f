import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { conversionMacro, writeOfficeProfile } from '../pdf/office-profile.ts';

/** Whether LibreOffice (soffice) and pdftotext are on this machine. */
export function officeAvailable(): boolean {
  return (
    spawnSync('soffice', ['--version'], { encoding: 'utf8' }).status === 0 &&
    spawnSync('pdftotext', ['-v'], { encoding: 'utf8' }).status === 0
  );
}

/**
 * Converts DOCX files to PDF in ONE LibreOffice run (one start-up for a whole test file), with the
 * same profile and macro as the service's converter (every index and field updated), and returns
 * each PDF with its text (pdftotext, page by page: pages are separated by form feeds).
 */
export async function convertDocxToPdfText<Name extends string>(
  docs: Record<Name, Uint8Array>,
): Promise<Record<Name, { text: string; pdf: Uint8Array }>> {
  const dir = await mkdtemp(path.join(tmpdir(), 'docx-pdf-test-'));
  const url = (file: string) => pathToFileURL(file).href;
  try {
    await writeOfficeProfile(path.join(dir, 'profile'));
    const macros: string[] = [];
    for (const [name, bytes] of Object.entries<Uint8Array>(docs)) {
      await writeFile(path.join(dir, `${name}.docx`), bytes);
      macros.push(
        conversionMacro(
          url(path.join(dir, `${name}.docx`)),
          url(path.join(dir, `${name}.pdf`)),
          url(path.join(dir, `${name}.error.txt`)),
        ),
      );
    }
    const said = await new Promise<string>((resolve, reject) => {
      const child = spawn(
        'soffice',
        [
          `-env:UserInstallation=${url(path.join(dir, 'profile'))}`,
          '--headless',
          '--invisible',
          '--nologo',
          '--norestore',
          '--nodefault',
          '--nolockcheck',
          ...macros,
        ],
        { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, HOME: dir } },
      );
      let output = '';
      const collect = (c: Buffer) => {
        output += c;
      };
      child.stdout.on('data', collect);
      child.stderr.on('data', collect);
      child.once('error', reject);
      child.once('close', (code) =>
        code === 0 ? resolve(output) : reject(new Error(`soffice failed (${code}): ${output}`)),
      );
    });
    const out = {} as Record<Name, { text: string; pdf: Uint8Array }>;
    for (const name of Object.keys(docs) as Name[]) {
      const error = await readFile(path.join(dir, `${name}.error.txt`), 'utf8').catch(() => '');
      if (error) throw new Error(`LibreOffice could not convert ${name}: ${error}`);
      const pdfFile = path.join(dir, `${name}.pdf`);
      const text = spawnSync('pdftotext', ['-enc', 'UTF-8', pdfFile, '-'], {
        encoding: 'utf8',
        maxBuffer: 512 * 1024 * 1024,
      });
      if (text.status !== 0) throw new Error(`pdftotext failed for ${name}: ${text.stderr} (soffice said: ${said})`);
      out[name] = { text: text.stdout, pdf: new Uint8Array(await readFile(pdfFile)) };
    }
    return out;
  } finally {
    await rm(dir, { recursive: true, force: true, maxRetries: 3 });
  }
}

/** The text of each page of a pdftotext output. */
export const pdfPages = (text: string): string[] => text.split('\f');
