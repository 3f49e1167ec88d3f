export { sampleFieldValue, sampleFinding } from './sample-finding.ts';
export {
  sampleLink,
  sampleLinkFieldValue,
  sampleProjectFieldValue,
  sampleReportFields,
  sampleReportFieldValue,
  sampleTab,
  sampleTabFieldValue,
} from './sample-report.ts';
