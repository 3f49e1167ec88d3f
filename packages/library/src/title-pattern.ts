// Why a re-export: scanner rules (`nessus:family=... & title=...`) carry title patterns too, so the
// check lives with the rule forms in @service/scanners; the library's API keeps its name.
export { compileTitlePattern, titlePatternProblem } from '@service/scanners';
