/**
 * Where a finding template's references may point: organisations that define or track the
 * weakness (standards bodies, vulnerability databases, the scanners' own plugin pages) and the
 * vendors of the products concerned. A domain covers its subdomains (`microsoft.com` covers
 * `learn.microsoft.com`); shared hosting domains (github.com, readthedocs.io, medium.com) are
 * listed by exact host only, for the projects that publish their official pages there.
 *
 * Why a list: a reference is what a report's reader follows to check a claim, so it must lead to
 * the source, not to a blog post, a mirror or a search result. Add a domain here, in the section
 * it belongs to, when a new template needs an authoritative source that is not covered yet.
 */
const DOMAINS: readonly string[] = [
  // Standards, weakness and vulnerability catalogues, government advisories
  'mitre.org',
  'cve.org',
  'nist.gov',
  'cisa.gov',
  'cert.org',
  'cyber.mil',
  'cisecurity.org',
  'pcisecuritystandards.org',
  'first.org',
  'owasp.org',
  'rfc-editor.org',
  'ietf.org',
  'w3.org',
  'whatwg.org',
  'oasis-open.org',
  'openid.net',
  'icann.org',
  'iana.org',
  'bsi.bund.de',
  'ncsc.gov.uk',
  // Browser and web platform documentation
  'mozilla.org',
  'hstspreload.org',
  'chromium.org',
  'web.dev',
  // The scanners' own descriptions of their checks
  'tenable.com',
  'portswigger.net',
  'nmap.org',
  'projectdiscovery.io',
  // Vendors and projects of the products concerned
  '7-zip.org',
  'adobe.com',
  'angularjs.org',
  'apache.org',
  'apple.com',
  'atlassian.com',
  'centos.org',
  'cisco.com',
  'citrix.com',
  'debian.org',
  'dell.com',
  'docker.com',
  'drupal.org',
  'elastic.co',
  'etcd.io',
  'exim.org',
  'fortiguard.com',
  'fortinet.com',
  'graphql.org',
  'hp.com',
  'hpe.com',
  'intel.com',
  'isc.org',
  'ivanti.com',
  'jenkins.io',
  'joomla.org',
  'kubernetes.io',
  'lenovo.com',
  'microsoft.com',
  'mongodb.com',
  'nginx.org',
  'nodejs.org',
  'notepad-plus-plus.org',
  'openbsd.org',
  'openjdk.org',
  'openssh.com',
  'openssl.org',
  'oracle.com',
  'paloaltonetworks.com',
  'php.net',
  'postfix.org',
  'postgresql.org',
  'prometheus.io',
  'python.org',
  'rarlab.com',
  'redhat.com',
  'redis.io',
  'samba.org',
  'spring.io',
  'sudo.ws',
  'suse.com',
  'swagger.io',
  'ubuntu.com',
  'videolan.org',
  'vmware.com',
  'wireshark.org',
  'wordpress.org',
  'x.org',
  'zoom.com',
  'zoom.us',
  // Original research pages named after the weakness they describe
  'heartbleed.com',
  'drownattack.com',
  'weakdh.org',
  'robotattack.org',
  'sweet32.info',
  'terrapin-attack.com',
  'specterops.io',
];

/** Exact hosts on shared hosting domains. */
const HOSTS: readonly string[] = [
  // PuTTY's home page
  'www.chiark.greenend.org.uk',
  // BIND's official documentation
  'bind9.readthedocs.io',
  // GitHub's own documentation
  'docs.github.com',
  // Cloud providers' documentation (their domains also host customer content)
  'docs.aws.amazon.com',
  'aws.amazon.com',
  'cloud.google.com',
  'support.google.com',
  'developers.google.com',
];

/** Whether a reference URL's host is on the allow-list. */
export function isAuthoritativeHost(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return HOSTS.includes(h) || DOMAINS.some((d) => h === d || h.endsWith(`.${d}`));
}

/**
 * Why a template reference is not acceptable, or null: an https URL, well-formed, without user
 * name or password, on an authoritative host.
 */
export function referenceProblem(reference: string): string | null {
  let url: URL;
  try {
    url = new URL(reference);
  } catch {
    return `"${reference}" is not a URL; references are https URLs`;
  }
  if (url.protocol !== 'https:') return `"${reference}" is not an https URL`;
  if (url.username !== '' || url.password !== '') return `"${reference}" carries a user name or password`;
  if (/\s/.test(reference)) return `"${reference}" contains white space`;
  if (!isAuthoritativeHost(url.hostname))
    return (
      `${url.hostname} is not on the list of authoritative reference hosts ` +
      `(packages/library/src/reference-hosts.ts); cite the standard, advisory or vendor page, or add the host there if it is one`
    );
  return null;
}

/** The form two references are compared in: no trailing slash, no fragment, host in lower case. */
export function referenceIdentity(reference: string): string {
  try {
    const url = new URL(reference);
    url.hash = '';
    return url.toString().replace(/\/$/, '');
  } catch {
    return reference.trim();
  }
}
