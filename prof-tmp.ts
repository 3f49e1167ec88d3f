import { readFileSync } from 'node:fs';
import { parseScan } from './packages/scanners/src/index.ts';
const fmt = process.argv[2] as any; const file = process.argv[3];
const u = readFileSync(file);
for (let i = 0; i < 30; i++) parseScan(u, { format: fmt });
