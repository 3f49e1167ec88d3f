// Bakes the source commit into apps/api/build-info.json (read by src/build-info.ts), so a built
// image reports its sha without git. Run by `npm run build -w @service/api` and the release build.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const sha = process.env.SERVICE_BUILD_SHA || execFileSync('git', ['rev-parse', 'HEAD']).toString().trim();
writeFileSync(new URL('../build-info.json', import.meta.url), `${JSON.stringify({ sha }, null, 2)}\n`);
console.log(`build-info.json: ${sha}`);
