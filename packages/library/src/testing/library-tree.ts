import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Files of a small valid library (one or two items of every kind), by path inside the library folder. */
export function sampleLibraryFiles(): Record<string, string> {
  return {
    'report-styles/plain.yaml': `key: plain
name: Plain
description: Black on white.
fonts: { heading: Calibri, body: Calibri }
colors: { primary: "#1F3A5F" }
pageSize: A4
footerText: Confidential
`,
    'narratives/scope-statement.md': `---
key: scope-statement
title: Scope
category: scope
---

The assessment covered the systems listed below.
`,
    'narratives/test-methodology.md': `---
key: test-methodology
title: Methodology
category: methodology
description: How we test.
---

We followed the OWASP Web Security Testing Guide.
`,
    'report-templates/pentest-report.yaml': `key: pentest-report
name: Penetration test report
style: plain
tabs:
  - title: Scope
    narrative: scope-statement
  - title: Methodology
    narrative: test-methodology
  - title: Notes
    content: Anything else.
`,
    'scoping-templates/web-scoping.yaml': `key: web-scoping
name: Web application scoping
sections:
  - title: General
    questions:
      - id: app-url
        text: Which URL does the application run at?
        type: text
        required: true
      - id: auth
        text: Which sign-in methods does it use?
        type: multi-choice
        options: [Password, SSO, Client certificates]
`,
    'project-types/web-test.yaml': `key: web-test
name: Web application test
reportTemplate: pentest-report
scopingTemplate: web-scoping
estimatedDays: { min: 3, max: 10 }
standards: [OWASP WSTG]
`,
    'finding-templates/smb-signing-disabled.md': `---
key: smb-signing-disabled
severity: medium
cvss:
  - CVSS:3.1/AV:A/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:N
cwes: [347]
references:
  - https://learn.microsoft.com/en-us/troubleshoot/windows-server/networking/overview-server-message-block-signing
match:
  nessus: [57608]
  nmap: ["open-port:445/tcp"]
---

# SMB signing not required

## Description

The server does not require SMB signing.

## Impact

An attacker in the network can relay authentication.

## Remediation

Require SMB signing on every host.
`,
    'finding-templates/outdated-php.md': `---
key: outdated-php
severity: high
scoreFrom: scanner
cwes: [1104]
cves: [CVE-2012-1823]
references:
  - https://www.php.net/supported-versions.php
match:
  cwes: [1104]
  titlePatterns:
    nessus: ["^PHP (\\\\d\\\\.x )?< ?\\\\d"]
---

# Outdated PHP version

## Description

The server runs a PHP version with known vulnerabilities.

## Impact

Attackers can use public exploits.

## Remediation

Upgrade PHP to a supported release.
`,
    'finding-templates/translations/de/smb-signing-disabled.md': `---
key: smb-signing-disabled
language: de
---

# SMB-Signierung nicht erzwungen

## Description

Der Server erzwingt keine SMB-Signierung.
`,
  };
}

/** A library folder in a temporary directory; `remove()` deletes it. */
export function writeLibraryTree(files: Record<string, string | Uint8Array | null>): { dir: string; remove(): void } {
  const root = mkdtempSync(path.join(tmpdir(), 'service-library-'));
  const dir = path.join(root, 'library');
  mkdirSync(dir);
  for (const [file, content] of Object.entries(files)) {
    if (content === null) continue;
    const target = path.join(dir, file);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, content);
  }
  return { dir, remove: () => rmSync(root, { recursive: true, force: true }) };
}
