// Tests and the in-app self-test share one tolerance helper.
export { compareClose, expectClose, type CloseReport, type Tolerance } from '../../src/util/tolerance';
