export { FIXTURE_FILES, laneFiles, LANES, TEST_DIRS, testFileNameProblem, type Lane } from './lanes.ts';
export {
  budgetMs,
  DEFAULT_BUDGET_MS,
  FULL_SIZE,
  LANE_BUDGET_MS,
  laneSize,
  PROCESS_START_MS,
  processBudgetMs,
} from './test-size.ts';
