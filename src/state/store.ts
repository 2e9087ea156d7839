// The lab's one store, made of typed slices with their actions inside. It talks to the engine
// only through a LabClient, so tests drive it with a fake client and a manual frame scheduler.
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { LabClient } from '../lab/protocol';
import { createDemoSlice, type DemoSlice } from './demoSlice';
import { createEngineSlice, type EngineSlice } from './engineSlice';
import { animationFrame, type FrameScheduler } from './frameQueue';
import { createSelfTestSlice, type SelfTestSlice } from './selfTestSlice';

export type LabState = EngineSlice & SelfTestSlice & DemoSlice;
export type LabStore = StoreApi<LabState>;

export function createLabStore(client: LabClient, schedule: FrameScheduler = animationFrame): LabStore {
  return createStore<LabState>()((...a) => ({
    ...createEngineSlice(client)(...a),
    ...createSelfTestSlice(client)(...a),
    ...createDemoSlice(client, schedule)(...a),
  }));
}

/** True while a job holds the engine (it runs one at a time). */
export function selectBusy(s: LabState): boolean {
  return s.selfTest.status === 'running' || s.demo.status === 'running' || s.demo.status === 'stopping';
}

/** True when commands can be sent: a device exists and has not been lost. */
export function selectEngineReady(s: LabState): boolean {
  return s.engine.adapter.status === 'ready' && s.engine.deviceLost === null;
}
