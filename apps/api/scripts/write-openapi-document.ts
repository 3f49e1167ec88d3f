// Writes the OpenAPI document the service publishes (`/api/rest-docs/openapi`) to the file named on
// the command line, built from the route declarations without a database or a running server. The
// client package generates its types from that file (`npm run generate` at the root wires the two),
// so the client never imports the app and the app's tests may import the client.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildOpenApiDocument } from '../src/index.ts';

const [file] = process.argv.slice(2);
if (file === undefined) {
  process.stderr.write('usage: node --import tsx apps/api/scripts/write-openapi-document.ts <document.json>\n');
  process.exit(2);
}
mkdirSync(path.dirname(file), { recursive: true });
writeFileSync(file, `${JSON.stringify(await buildOpenApiDocument(), null, 2)}\n`);
