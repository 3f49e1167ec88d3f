import { decideUpgrade, explainUpgradeDecision, isReleaseVersion } from '@service/release-kit';
import type { PreflightCheck } from './preflight-check.ts';

/**
 * The version inside the signed manifest against the installed one: newer and reachable from the
 * installed version (minUpgradeFrom). The file name of the package plays no part.
 */
export const versionOrderCheck: PreflightCheck = {
  id: 'version-order',
  title: 'version',
  appliesTo: ['upgrade'],
  run({ installation, package: pkg }) {
    const installed = installation.env?.values.get('SERVICE_VERSION');
    if (!pkg?.verified) return { status: 'skip', detail: 'the package was not verified' };
    if (!installed || !isReleaseVersion(installed))
      return { status: 'skip', detail: 'the installed version is unknown' };
    const decision = decideUpgrade(installed, pkg.verified.manifest);
    if (decision.kind === 'upgrade') return { status: 'pass', detail: `${decision.from} -> ${decision.to}` };
    if (decision.kind === 'same') return { status: 'pass', detail: `already at ${decision.version}` };
    const why = explainUpgradeDecision(decision)!;
    return { status: 'fail', detail: why.message, hint: why.hint };
  },
};
