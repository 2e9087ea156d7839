// Self-test slice: rows stream in one by one as the worker finishes each check; the ORT check
// (onnxruntime-web beside the lab's kernels, src/selftest/ortcheck.ts) runs on its own button.
import type { StateCreator } from 'zustand/vanilla';
import type { LabClient, OrtCheckResult, SelfTestRow, SelfTestSummary } from '../lab/protocol';
import { errorText } from '../util/errors';
import type { LabState } from './store';

export interface SelfTestSlice {
  selfTest: {
    status: 'idle' | 'running' | 'done' | 'failed';
    names: string[];
    rows: SelfTestRow[];
    summary: SelfTestSummary | null;
    error: string | null;
  };
  ortCheck: {
    status: 'idle' | 'running' | 'done' | 'failed';
    /** the policy being checked or last checked */
    policy: string | null;
    result: OrtCheckResult | null;
    error: string | null;
  };
  runSelfTests(): Promise<void>;
  /** Checks the launcher's base policy with onnxruntime-web against the lab's kernels. */
  runOrtCheck(): Promise<void>;
}

/** The policy the next run would start from: the launcher's choice, else the catalog's default. */
export function selectCurrentPolicy(s: LabState): string | null {
  return s.launcher.state.policy ?? (s.catalog.status === 'ready' ? s.catalog.catalog.defaultPolicy : null);
}

export const createSelfTestSlice =
  (client: LabClient): StateCreator<LabState, [], [], SelfTestSlice> =>
  (set, get) => {
    const patch = (p: Partial<SelfTestSlice['selfTest']>) => set((s) => ({ selfTest: { ...s.selfTest, ...p } }));
    return {
      selfTest: { status: 'idle', names: [], rows: [], summary: null, error: null },
      ortCheck: { status: 'idle', policy: null, result: null, error: null },

      async runSelfTests() {
        if (get().selfTest.status === 'running') return;
        patch({ status: 'running', rows: [], summary: null, error: null });
        try {
          patch({ names: await client.selfTestNames() });
          const summary = await client.runSelfTests((row) => patch({ rows: [...get().selfTest.rows, row] }));
          patch({ status: 'done', summary });
        } catch (e) {
          patch({ status: 'failed', error: errorText(e) });
        }
      },

      async runOrtCheck() {
        if (get().ortCheck.status === 'running') return;
        const policy = selectCurrentPolicy(get());
        const patchOrt = (p: Partial<SelfTestSlice['ortCheck']>) => set((s) => ({ ortCheck: { ...s.ortCheck, ...p } }));
        if (!policy) {
          patchOrt({ status: 'failed', policy: null, result: null, error: 'no base policy is chosen yet (the list of policies has not loaded)' });
          return;
        }
        patchOrt({ status: 'running', policy, result: null, error: null });
        try {
          patchOrt({ status: 'done', result: await client.runOrtCheck(policy) });
        } catch (e) {
          patchOrt({ status: 'failed', error: errorText(e) });
        }
      },
    };
  };
