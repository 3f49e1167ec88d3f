import { readFileSync } from 'node:fs';
import { SaxesParser } from 'saxes';
import { parseScan } from './packages/scanners/src/index.ts';
const files: [string, any][] = [['/tmp/scanbench/n4.nessus', 'nessus'], ['/tmp/scanbench/b4.xml', 'burp']];
const time = (fn: () => void) => { const runs: number[] = []; for (let i = 0; i < 5; i++) fn(); for (let i = 0; i < 15; i++) { const t = performance.now(); fn(); runs.push(performance.now() - t); } runs.sort((a, b) => a - b); return runs[7]; };
for (const [file, format] of files) {
  const bytes = readFileSync(file);
  const base = time(() => {
    const p = new SaxesParser({ xmlns: false, position: true });
    p.on('opentag', () => {}); p.on('closetag', () => {}); p.on('text', () => {}); p.on('cdata', () => {});
    p.write(bytes.toString('utf8'));
    p.close();
  });
  const ours = time(() => parseScan(bytes, { format }));
  const mb = bytes.length / 1048576;
  console.log(format, 'saxes', (mb / base * 1000).toFixed(1), 'MB/s', 'ours', (mb / ours * 1000).toFixed(1), 'MB/s', 'ratio', (base / ours * 100).toFixed(0) + '%');
}
