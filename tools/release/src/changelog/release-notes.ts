import { OperatorError } from '@service/cli-kit';
import { compareVersions, isReleaseVersion } from '@service/release-kit';

export interface ReleaseNotes {
  version: string;
  /** The section's text, heading included, trimmed, with one final newline. */
  text: string;
  /** The date in the heading (`## [1.2.0] - 2026-11-20`), if any. */
  date: string | null;
}

const HEADING = /^## \[([^\]]+)\](?:\s+-\s+(\d{4}-\d{2}-\d{2}))?\s*$/;

/** Versions that have a section of their own (not `[Unreleased]`), in the order they appear. */
export function changelogVersions(changelog: string): string[] {
  return changelog
    .split('\n')
    .map((line) => HEADING.exec(line)?.[1])
    .filter((v): v is string => v !== undefined && isReleaseVersion(v));
}

/**
 * The section `## [version]` of a Keep a Changelog file, up to the next `## ` heading. SPEC
 * "Versioning": release notes are taken from the matching section. Throws when there is none.
 */
export function cutReleaseNotes(changelog: string, version: string, source: string): ReleaseNotes {
  const lines = changelog.replace(/\r\n/g, '\n').split('\n');
  const start = lines.findIndex((line) => HEADING.exec(line)?.[1] === version);
  if (start < 0) {
    throw new OperatorError(`${source} has no section "## [${version}]"; a release's notes are cut from it`, {
      hint:
        `Add "## [${version}] - YYYY-MM-DD" with the changes of ${version} (move them ` +
        `from [Unreleased]), then build again.`,
    });
  }
  let end = lines.findIndex((line, i) => i > start && (line.startsWith('## ') || /^\[[^\]]+\]:\s/.test(line)));
  if (end < 0) end = lines.length;
  const text = lines.slice(start, end).join('\n').trim();
  if (text.split('\n').length < 2) {
    throw new OperatorError(`${source} section "## [${version}]" is empty`, {
      hint: `List the changes of ${version} under its heading.`,
    });
  }
  return { version, text: `${text}\n`, date: HEADING.exec(lines[start]!)?.[2] ?? null };
}

/** The oldest released version in the changelog that is not newer than `version` (the default minUpgradeFrom). */
export function oldestReleasedVersion(changelog: string, version: string): string {
  const versions = changelogVersions(changelog).filter((v) => compareVersions(v, version) <= 0);
  return versions.sort(compareVersions)[0] ?? version;
}
