// The scanner files of the retest tests (issue 20): real Nessus and Nuclei output from
// fixtures/public, and re-scans made from them by editing (hosts left out, results gone, a new one).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../fixtures/public');
export const NESSUS = readFileSync(
  path.join(FIXTURES, 'nessus/savon-noir-python-libnessus-report-local-3.nessus'),
  'utf8',
);
export const NUCLEI = readFileSync(
  path.join(FIXTURES, 'nuclei/cytix-software-AppSec-Detection-Framework-nuclei-1852.json'),
  'utf8',
);
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

/** The `<ReportHost>` block of a host in a Nessus file. */
function hostBlock(nessus: string, host: string): string {
  const start = nessus.indexOf(`<ReportHost name="${host}">`);
  const end = nessus.indexOf('</ReportHost>', start) + '</ReportHost>'.length;
  if (start < 0) throw new Error(`no host ${host}`);
  return nessus.slice(start, end);
}

/** A Nessus file without the results of these plugins on one host. */
function withoutPlugins(nessus: string, host: string, plugins: readonly string[]): string {
  const block = hostBlock(nessus, host);
  let edited = block;
  for (const plugin of plugins) {
    const items = edited.match(
      new RegExp(`<ReportItem [^>]*pluginID="${plugin}"[^>]*>[\\s\\S]*?</ReportItem>\\n?`, 'g'),
    );
    if (!items) throw new Error(`no plugin ${plugin} on ${host}`);
    for (const item of items) edited = edited.replace(item, '');
  }
  return nessus.replace(block, edited);
}

/** A Nessus file with a result of a plugin the original scan did not report, on one host. */
function withNewPlugin(nessus: string, host: string): string {
  const block = hostBlock(nessus, host);
  const item =
    '<ReportItem port="23" svc_name="telnet" protocol="tcp" severity="2" pluginID="990001" ' +
    'pluginName="Retest demo: Telnet service with cleartext logins" pluginFamily="Service detection">\n' +
    '<description>A Telnet server accepts logins over cleartext connections.</description>\n' +
    '<solution>Disable Telnet; use SSH.</solution>\n<risk_factor>Medium</risk_factor>\n' +
    '<plugin_output>Telnet banner: Ubuntu 10.10</plugin_output>\n</ReportItem>\n';
  return nessus.replace(block, block.replace('</ReportHost>', `${item}</ReportHost>`));
}

/** The Apache httpd plugins on 192.168.2.100:80. */
export const APACHE = ['50070', '64912', '68915', '53896', '57791', '56216', '62101'];

/** The re-scan: 192.168.2.101 missing, SSH weak MACs gone from .100, Apache fixed, a new Telnet finding. */
export const NESSUS_RESCAN = withNewPlugin(
  withoutPlugins(NESSUS.replace(hostBlock(NESSUS, '192.168.2.101'), ''), '192.168.2.100', ['71049', ...APACHE]),
  '192.168.2.100',
);
/** A second file: only 192.168.2.101, where the weak SSH MACs are fixed too (the outdated OpenSSH is not). */
export const NESSUS_SECOND_HOST = NESSUS.replace(hostBlock(NESSUS, '192.168.2.104'), '')
  .replace(hostBlock(NESSUS, '192.168.2.100'), '')
  .replace(
    hostBlock(NESSUS, '192.168.2.101'),
    hostBlock(withoutPlugins(NESSUS, '192.168.2.101', ['71049']), '192.168.2.101'),
  );

/** The Nuclei re-scan: the .env files fixed, the HttpOnly cookie flag fixed on :10142 only. */
export const NUCLEI_RESCAN = JSON.stringify(
  (JSON.parse(NUCLEI) as Array<Record<string, unknown>>).filter(
    (r) =>
      !['codeigniter-env', 'laravel-env', 'generic-env'].includes(String(r['template-id'])) &&
      !(r['template-id'] === 'cookies-without-httponly' && r.host === '127.0.0.1:10142'),
  ),
);

/** A multipart body for `import-scan`. */
export function scanForm(text: string, name: string, fields: Record<string, string> = {}): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  form.set('file', new Blob([Buffer.from(text)]), name);
  return form;
}
