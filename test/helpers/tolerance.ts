// Tests and the in-app self-test share one tolerance helper.
export { compareClose, expectClose, type Tolerance } from '../../src/util/tolerance';
