// A LabClient for store tests: every call answers inertly (nothing to run, nothing saved) unless
// the test overrides it, so each test spells out only the calls it is about.
import type { LabClient } from '../../src/lab/protocol';

const NOT_HERE = 'not in this test';

export function fakeLabClient(overrides: Partial<LabClient> = {}): LabClient {
  const inert: LabClient = {
    init: async () => ({ ok: false, reason: 'no-adapter', message: NOT_HERE }),
    selfTestNames: async () => [],
    runSelfTests: async () => ({ passed: 0, failed: 0 }),
    runOrtCheck: async () => {
      throw new Error(NOT_HERE);
    },
    startDemo: async () => 'done',
    stopDemo: async () => undefined,
    startRun: async () => Promise.reject(new Error('no runs in this test')),
    pauseRun: async () => undefined,
    resumeRun: async () => undefined,
    stepRun: async () => undefined,
    stopRun: async () => undefined,
    setRunKnobs: async () => 1,
    registerPolicy: async () => undefined,
    debugLoseDevice: async () => undefined,
    reconnect: async () => ({ ok: false, reason: 'no-adapter', message: NOT_HERE }),
    listCheckpoints: async () => [],
    deleteCheckpoints: async () => undefined,
    exportCheckpoint: async () => {
      throw new Error(NOT_HERE);
    },
    crossPlay: async () => {
      throw new Error(NOT_HERE);
    },
  };
  return { ...inert, ...overrides };
}
