// Markdown export and re-import of whole reports (@service/markdown). A seeded generator builds a
// realistic ReportDocument: 12 tabs of several KB of Markdown (headings, tables, code), and findings
// with several KB of Markdown each (code fences in some), CVSS, CWEs, references, 1-4 affected
// assets (some with HTTP evidence in CRLF) and evidence image references. Each size runs in a
// fresh child process so its peak RSS is its own. Figures: median of several runs after warm-up.
// Targets: 500 findings export < 1 s and import < 1 s.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  documentLink,
  emptyDocumentFinding,
  emptyDocumentTab,
  emptyReportDocument,
  type AffectedAsset,
  type EvidenceRef,
  type ReportDocument,
  type ReportDocumentFinding,
  type ReportDocumentTab,
} from '@service/report-model';
import { exportReportMarkdown, importReportMarkdown } from '@service/markdown';
import { median } from '../support/median.ts';

const SIZES = [
  { findings: 500, warmup: 2, runs: 7, targetMs: 1000 },
  { findings: 5_000, warmup: 1, runs: 3, targetMs: null },
];

interface ChildReport {
  findings: number;
  bytes: number;
  exportMs: number;
  importMs: number;
  peakRssMb: number;
  heapUsedMb: number;
}

export default async function run(): Promise<void> {
  console.log('findings  tabs  file MB  export ms  import ms  peak RSS MB  target (export, import < 1 s)');
  let missed = 0;
  for (const size of SIZES) {
    const child = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        fileURLToPath(import.meta.url),
        'child',
        String(size.findings),
        String(size.warmup),
        String(size.runs),
      ],
      {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
        maxBuffer: 1024 * 1024,
      },
    );
    if (child.status !== 0) throw new Error(`the ${size.findings}-finding run failed with exit code ${child.status}`);
    const r = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as ChildReport;
    const met =
      size.targetMs === null
        ? 'no target'
        : r.exportMs < size.targetMs && r.importMs < size.targetMs
          ? 'met'
          : 'MISSED';
    if (met === 'MISSED') missed++;
    console.log(
      [
        String(r.findings).padStart(8),
        '12'.padStart(4),
        (r.bytes / 1024 / 1024).toFixed(1).padStart(7),
        r.exportMs.toFixed(0).padStart(9),
        r.importMs.toFixed(0).padStart(9),
        r.peakRssMb.toFixed(0).padStart(11),
        ` ${met}`,
      ].join('  '),
    );
  }
  console.log(missed === 0 ? 'targets met' : `${missed} target(s) missed`);
}

function time(fn: () => void): number {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function child(findings: number, warmup: number, runs: number): void {
  const doc = buildReport(findings, 12);
  let text = '';
  for (let i = 0; i < warmup; i++) {
    text = exportReportMarkdown(doc);
    importReportMarkdown(text);
  }
  const exportTimes: number[] = [];
  const importTimes: number[] = [];
  for (let i = 0; i < runs; i++) {
    exportTimes.push(
      time(() => {
        text = exportReportMarkdown(doc);
      }),
    );
    importTimes.push(time(() => importReportMarkdown(text)));
  }
  const report: ChildReport = {
    findings,
    bytes: Buffer.byteLength(text),
    exportMs: median(exportTimes),
    importMs: median(importTimes),
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    heapUsedMb: process.memoryUsage().heapUsed / 1024 / 1024,
  };
  console.log(JSON.stringify(report));
}

/** A small seeded generator (mulberry32), so every run builds the same document. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'the application server request response user input attacker session token header ' +
  'cookie database query parameter access control configuration version update ' +
  'password certificate encryption network service port host vulnerability exploit ' +
  'data file directory script page form login account privilege'
).split(' ');

function buildReport(findingCount: number, tabCount: number): ReportDocument {
  const rnd = random(42);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)]!;
  const sentence = (words: number) => {
    const out: string[] = [];
    for (let i = 0; i < words; i++) out.push(pick(WORDS));
    const s = out.join(' ');
    return `${s[0]!.toUpperCase()}${s.slice(1)}.`;
  };
  const paragraph = (sentences: number) =>
    Array.from({ length: sentences }, () => sentence(8 + Math.floor(rnd() * 12))).join(' ');
  const sha = () => Array.from({ length: 64 }, () => '0123456789abcdef'[Math.floor(rnd() * 16)]).join('');
  const evidence = (n: number): EvidenceRef[] =>
    Array.from({ length: n }, (_, i) => ({
      sha256: sha(),
      fileName: `screenshot-${i + 1}.png`,
      caption: sentence(6),
      contentType: 'image/png' as const,
    }));

  const tabs: ReportDocumentTab[] = Array.from({ length: tabCount }, (_, t) => ({
    ...emptyDocumentTab(`Tab ${t + 1}: ${sentence(3).slice(0, -1)}`),
    content: [
      `# ${sentence(3)}`,
      paragraph(6),
      `## ${sentence(2)}`,
      paragraph(8),
      '| Host | Port | Service |\n|---|---|---|\n' +
        Array.from({ length: 10 }, (_, i) => `| 10.0.0.${i} | 443 | https |`).join('\n'),
      `- ${sentence(6)}\n- ${sentence(7)}\n- ${sentence(5)}`,
      paragraph(10),
    ].join('\n\n'),
    evidence: evidence(t % 3 === 0 ? 2 : 0),
  }));

  const findings: ReportDocumentFinding[] = Array.from({ length: findingCount }, (_, f) => {
    const withCode = f % 3 === 0;
    const assets: AffectedAsset[] = Array.from({ length: 1 + (f % 4) }, (_, a) => {
      const asset: AffectedAsset = {
        host: `host-${f}-${a}.example.com`,
        ip: `10.${f % 250}.${a}.1`,
        port: 443,
        protocol: 'tcp',
        service: 'https',
        url: `https://host-${f}-${a}.example.com/path/${a}`,
      };
      if (a === 0 && f % 2 === 0) {
        asset.parameter = 'id';
        asset.evidence =
          `GET /path/${a}?id=1%27 HTTP/1.1\r\nHost: host-${f}.example.com\r\nUser-Agent: ` +
          `Mozilla/5.0\r\nAccept: */*\r\n\r\nHTTP/1.1 500 Internal Server ` +
          `Error\r\nContent-Type: ` +
          `text/html\r\n\r\n<html><body>${paragraph(6)}</body></html>`;
      }
      return asset;
    });
    return {
      ...emptyDocumentFinding(
        `Finding ${f + 1}: ${sentence(4).slice(0, -1)}`,
        pick(['critical', 'high', 'medium', 'low', 'info'] as const),
      ),
      cvss: [{ version: '3.1', vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', baseScore: 9.8 }],
      cves: f % 5 === 0 ? [`CVE-2024-${1000 + f}`] : [],
      cwes: [79 + (f % 20)],
      references: [
        `https://owasp.org/Top10/A0${1 + (f % 9)}/`,
        `https://cwe.mitre.org/data/definitions/${79 + (f % 20)}.html`,
        'https://example.com/advisory?id=1&lang=en',
      ],
      description: [
        paragraph(8),
        paragraph(6),
        withCode ? `\`\`\`http\nGET /search?q=%27%20OR%201=1-- HTTP/1.1\nHost: example.com\n\`\`\`` : paragraph(4),
        `#### Details\n\n${paragraph(6)}`,
      ].join('\n\n'),
      impact: paragraph(5),
      remediation: [paragraph(4), `1. ${sentence(8)}\n2. ${sentence(9)}\n3. ${sentence(7)}`, paragraph(3)].join('\n\n'),
      affectedAssets: assets,
      source:
        f % 2 === 0
          ? { kind: 'scanner', scanner: 'nessus', scannerVersion: '10.7.1', ruleId: String(10_000 + f) }
          : { kind: 'template', templateKey: `web-finding-${f % 80}` },
      evidence: evidence(f % 4 === 0 ? 2 : 0),
    };
  });

  return {
    ...emptyReportDocument('Benchmark report', 'ACME Corp.', 'Benchmark'),
    findingOrder: 'manual',
    summary: paragraph(10),
    project: { name: 'Benchmark', startDate: '2024-03-04', endDate: '2024-03-08' },
    style: { key: 'default', name: 'Default' },
    tabs,
    links: [documentLink('Ticket', 'https://jira.example.com/browse/SEC-1')],
    findings,
  };
}

if (process.argv[2] === 'child') child(Number(process.argv[3]), Number(process.argv[4]), Number(process.argv[5]));
