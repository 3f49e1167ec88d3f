// Builds library/report-styles/word-template-example.docx: an example Word template in the tag
// language of docs/docx-templates.md (cover page, contents, narrative tabs, findings overview,
// one section per finding with severity, CVSS, assets table and evidence, links). Written from
// XML parts, so the file is the same byte for byte on every run.
//   npm run build-example-template -w @service/docx
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { exampleTemplateParts } from '../src/template/example-template.ts';
import { writeZip } from '../src/zip-archive.ts';

const out = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../library/report-styles/word-template-example.docx',
);
writeFileSync(out, writeZip(exampleTemplateParts()));
console.log(`wrote ${out}`);
